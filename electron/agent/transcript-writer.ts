import type { Message, ToolDisplay } from '../../shared/schemas/message.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { visibleCommand } from '../permissions/gate.js';

/** Streaming text is written to the store and pushed to clients at most this often. */
export const TEXT_FLUSH_MS = 100;

/** Writes one turn into the transcript: streaming text rows and tool rows, flushed at a calm pace. */
export class TranscriptWriter {
  readonly #sessions: SessionsService;
  readonly #sessionId: string;
  readonly #automated: boolean;
  #message: Message | null = null;
  #text = '';
  #flushTimer: NodeJS.Timeout | null = null;
  readonly #running = new Set<number>();

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

  toolFinished(
    row: Message,
    result: string,
    status: 'done' | 'error' | 'rejected',
    taskId?: string,
    display?: ToolDisplay,
  ): void {
    this.#running.delete(row.id);
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
    for (const id of this.#running) this.#sessions.update(id, { status });
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
