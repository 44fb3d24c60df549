import type { Message, ToolDisplay } from '../../shared/schemas/message.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { visibleCommand } from '../permissions/gate.js';

/** Streaming text is written to the store and pushed to clients at most this often. */
export const TEXT_FLUSH_MS = 100;

/** A running call's progress line is written to its row at most this often. */
export const PROGRESS_FLUSH_MS = 1000;

/** A row's progress line: when it was last written, and the newest one waiting for its turn. */
interface Progress {
  writtenAt: number;
  pending: string | null;
  timer: NodeJS.Timeout | null;
}

/** Writes one turn into the transcript: streaming text rows and tool rows, flushed at a calm pace. */
export class TranscriptWriter {
  readonly #sessions: SessionsService;
  readonly #sessionId: string;
  readonly #automated: boolean;
  #message: Message | null = null;
  #text = '';
  #flushTimer: NodeJS.Timeout | null = null;
  readonly #running = new Set<number>();
  readonly #progress = new Map<number, Progress>();

  constructor(sessions: SessionsService, sessionId: string, automated: boolean) {
    this.#sessions = sessions;
    this.#sessionId = sessionId;
    this.#automated = automated;
  }

  text(delta: string): void {
    if (!delta) return;
    this.#message ??= this.#sessions.append({
      sessionId: this.#sessionId,
      role: 'assistant',
      text: '',
      status: 'streaming',
      automated: this.#automated,
    });
    this.#text += delta;
    this.#flushTimer ??= setTimeout(() => {
      try {
        this.#flush();
      } catch {
        // The transcript could not be written just now (a full disk); the text stays and the next flush tries again.
      }
    }, TEXT_FLUSH_MS);
  }

  endText(status: 'done' | 'error' | 'cancelled' = 'done'): void {
    if (!this.#message) return;
    this.#flush(status);
    this.#message = null;
    this.#text = '';
  }

  cancel(): void {
    this.endText('cancelled');
  }

  toolStarted(name: string, toolCallId: string, args: unknown): Message {
    this.endText();
    const row = this.#sessions.append({
      sessionId: this.#sessionId,
      role: 'tool',
      text: summarise(name, args),
      toolName: name,
      toolCallId,
      toolArgs: args,
      status: 'running',
      automated: this.#automated,
    });
    this.#running.add(row.id);
    return row;
  }

  attachTask(row: Message, taskId: string): void {
    this.#sessions.update(row.id, { taskId });
  }

  /** A tool row waits for the person's answer, or runs again once it came. */
  toolStatus(row: Message, status: 'waiting' | 'running'): void {
    this.#sessions.update(row.id, { status });
  }

  /**
   * A running call's progress, shown on its row as plain text until it answers. At most one write
   * a second: a line coming sooner waits, and a newer one replaces it.
   */
  toolProgress(row: Message, text: string): void {
    if (!this.#running.has(row.id)) return;
    const progress = this.#progress.get(row.id) ?? { writtenAt: 0, pending: null, timer: null };
    this.#progress.set(row.id, progress);
    progress.pending = text;
    const wait = progress.writtenAt + PROGRESS_FLUSH_MS - Date.now();
    if (wait <= 0) this.#writeProgress(row.id, progress);
    else progress.timer ??= setTimeout(() => this.#writeProgress(row.id, progress), wait);
  }

  #writeProgress(id: number, progress: Progress): void {
    if (progress.timer) clearTimeout(progress.timer);
    progress.timer = null;
    const text = progress.pending;
    progress.pending = null;
    if (text === null || !this.#running.has(id)) return;
    try {
      this.#sessions.update(id, { display: { kind: 'text', text } });
    } catch {
      // The transcript could not be written just now (a full disk); the next line tries again.
    } finally {
      // Counted from the end of the write, so clients never get two lines less than a second apart.
      progress.writtenAt = Date.now();
    }
  }

  /** Drops a row's waiting progress line; true when the row showed one. */
  #endProgress(id: number): boolean {
    const progress = this.#progress.get(id);
    if (!progress) return false;
    if (progress.timer) clearTimeout(progress.timer);
    this.#progress.delete(id);
    return progress.writtenAt > 0;
  }

  toolFinished(
    row: Message,
    result: string,
    status: 'done' | 'error' | 'rejected',
    taskId?: string,
    display?: ToolDisplay,
  ): void {
    this.#running.delete(row.id);
    this.#endProgress(row.id);
    // The model's words and the person's are kept side by side; the model's history reads only its own.
    this.#sessions.update(row.id, {
      toolResult: result,
      status,
      display: display ?? null,
      ...(taskId ? { taskId } : {}),
    });
  }

  /** Tool rows still running when a turn ends were cut short. */
  settleRunningTools(status: 'cancelled' | 'error'): void {
    // A progress line stays only while its call runs: a row cut short shows no "Sleeping…".
    for (const id of this.#running)
      this.#sessions.update(id, { status, ...(this.#endProgress(id) ? { display: null } : {}) });
    this.#running.clear();
  }

  #flush(status: 'streaming' | 'done' | 'error' | 'cancelled' = 'streaming'): void {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    if (this.#message) this.#sessions.update(this.#message.id, { text: this.#text, status });
  }
}

function summarise(name: string, args: unknown): string {
  const record = (args ?? {}) as Record<string, unknown>;
  // Shown as the gate shows it: control characters visible.
  if (typeof record.command === 'string') return visibleCommand(record.command);
  if (typeof record.task_id === 'string') return `${name} ${record.task_id}`;
  return name;
}
