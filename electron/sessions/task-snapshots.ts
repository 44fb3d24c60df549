import {
  SNAPSHOT_OUTPUT_BYTES,
  SNAPSHOT_OUTPUT_LINES,
  type Message,
  type TaskSnapshot,
} from '../../shared/schemas/message.js';
import { isSettled, type TaskOutput, type TaskRow } from '../../shared/schemas/task.js';
import type { SessionsService } from './sessions-service.js';

/** What snapshots read of the tasks (the pool). */
export interface SnapshotSource {
  has(sessionId: string, id: string): boolean;
  row(sessionId: string, id: string): TaskRow;
  list(sessionId: string): TaskRow[];
  output(sessionId: string, id: string, tailLines?: number): Promise<TaskOutput>;
}

export interface TaskSnapshotsDeps {
  sessions: Pick<SessionsService, 'update' | 'rowsOfTask'>;
  source: SnapshotSource;
  now?: () => number;
  log?: (message: string) => void;
}

/**
 * Keeps each transcript tool row whole on its own: when the task a row stands for or concerns
 * settles (or a row first names a settled task, as a read of its output does), the row records
 * the task as it showed it. Clear in the tasks panel, a deleted task or a removed log then forgets
 * the panel's list and the log, never what the transcript showed (history is append-only).
 */
export class TaskSnapshots {
  readonly #deps: TaskSnapshotsDeps;
  readonly #now: () => number;
  /** Captures in flight per task, so a clear waits for them before the log goes. */
  readonly #inFlight = new Map<string, Promise<void>>();
  #disposed = false;

  constructor(deps: TaskSnapshotsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** For `bus.subscribe`: task and message events start captures. */
  readonly listener = (name: string, payload: unknown): void => {
    if (this.#disposed) return;
    if (name === 'taskUpdated') {
      const { task } = payload as { task: TaskRow };
      if (isSettled(task.status)) void this.capture(task.sessionId, task.id);
    } else if (name === 'messageAdded' || name === 'messageUpdated') {
      const { message } = payload as { message: Message };
      if (message.role === 'tool' && message.taskId !== null && !isFinal(message.taskSnapshot))
        this.#captureIfSettled(message.sessionId, message.taskId);
    }
  };

  /**
   * Before tasks of a session are forgotten (Clear, a delete): waits for captures in flight, then
   * records every settled task whose rows do not show its end yet (tasks settled while no capture
   * ran, such as orphans an earlier run left and this start settled as lost).
   */
  async beforeForget(sessionId: string, taskIds?: readonly string[]): Promise<void> {
    await Promise.all([...this.#inFlight.values()]);
    const wanted = taskIds === undefined ? null : new Set(taskIds);
    for (const task of this.#deps.source.list(sessionId)) {
      if (!isSettled(task.status) || (wanted && !wanted.has(task.id))) continue;
      await this.capture(sessionId, task.id);
    }
  }

  /** Records the task's current state and newest output on every row that names it and lacks it. */
  capture(sessionId: string, taskId: string): Promise<void> {
    const key = `${sessionId}/${taskId}`;
    const previous = this.#inFlight.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.#capture(sessionId, taskId))
      .catch((error: unknown) =>
        this.#deps.log?.(`the transcript could not keep task ${taskId}: ${(error as Error).message}`),
      )
      .finally(() => {
        if (this.#inFlight.get(key) === next) this.#inFlight.delete(key);
      });
    this.#inFlight.set(key, next);
    return next;
  }

  dispose(): void {
    this.#disposed = true;
  }

  #captureIfSettled(sessionId: string, taskId: string): void {
    const { source } = this.#deps;
    if (source.has(sessionId, taskId) && isSettled(source.row(sessionId, taskId).status))
      void this.capture(sessionId, taskId);
  }

  async #capture(sessionId: string, taskId: string): Promise<void> {
    const { source, sessions } = this.#deps;
    if (this.#disposed || !source.has(sessionId, taskId)) return;
    const task = source.row(sessionId, taskId);
    const stale = sessions.rowsOfTask(sessionId, taskId).filter((row) => !shows(row.taskSnapshot, task));
    if (stale.length === 0) return;
    const output = capOutput(await source.output(sessionId, taskId, SNAPSHOT_OUTPUT_LINES));
    if (this.#disposed) return;
    const snapshot = snapshotOf(task, output, this.#now());
    for (const row of stale) sessions.update(row.id, { taskSnapshot: snapshot });
  }
}

/** The snapshot a row keeps of its task. */
export function snapshotOf(task: TaskRow, output: TaskOutput, now: number): TaskSnapshot {
  return {
    taskId: task.id,
    command: task.command,
    status: task.status,
    exitCode: task.exitCode,
    signal: task.signal,
    exitNote: task.exitNote,
    error: task.error,
    startedAt: task.startedAt,
    endedAt: task.endedAt,
    elapsedSeconds: task.elapsedSeconds,
    foreground: task.foreground,
    adopted: task.adopted,
    output,
    takenAt: new Date(now).toISOString(),
  };
}

/**
 * The newest lines within SNAPSHOT_OUTPUT_BYTES of UTF-8, cut where a line starts (inside a line
 * only when the last line alone is longer), never inside a character.
 */
export function capOutput(output: TaskOutput): TaskOutput {
  const bytes = Buffer.from(output.text, 'utf8');
  if (bytes.length <= SNAPSHOT_OUTPUT_BYTES) return output;
  let cut = bytes.length - SNAPSHOT_OUTPUT_BYTES;
  const newline = bytes.indexOf(0x0a, cut - 1);
  if (newline !== -1 && newline + 1 < bytes.length) cut = newline + 1;
  else while (cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut++;
  return { ...output, text: bytes.subarray(cut).toString('utf8'), truncated: true };
}

/** A snapshot of a settled task: nothing later will change it but a status that still moves (orphaned → lost). */
function isFinal(snapshot: TaskSnapshot | null): boolean {
  return snapshot !== null && isSettled(snapshot.status) && snapshot.status !== 'orphaned';
}

function shows(snapshot: TaskSnapshot | null, task: TaskRow): boolean {
  return (
    snapshot !== null &&
    snapshot.status === task.status &&
    snapshot.endedAt === task.endedAt &&
    snapshot.exitCode === task.exitCode &&
    snapshot.error === task.error
  );
}
