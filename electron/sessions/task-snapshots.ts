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

/** Which settled tasks may be forgotten now, and why the others may not. */
export interface ForgetCheck {
  /** Every row naming these shows them as they ended (or no row names them). */
  safe: string[];
  /** Their rows could not be brought up to date: forgetting them would lose what the transcript showed. */
  failed: { taskId: string; reason: string }[];
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
   * ran, such as orphans an earlier run left and this start settled as lost). Answers the settled
   * tasks (of `taskIds` when given) whose rows are safe now: captured here or before, or named by
   * no row. Only these may be forgotten: one whose capture failed (its log unreadable, the
   * database busy or full) would take what its rows showed with it, and one that settles after
   * this list was taken was never captured here at all.
   */
  async beforeForget(sessionId: string, taskIds?: readonly string[]): Promise<ForgetCheck> {
    await Promise.all([...this.#inFlight.values()]);
    const wanted = taskIds === undefined ? null : new Set(taskIds);
    const check: ForgetCheck = { safe: [], failed: [] };
    for (const task of this.#deps.source.list(sessionId)) {
      if (!isSettled(task.status) || (wanted && !wanted.has(task.id))) continue;
      try {
        if (await this.#queue(sessionId, task.id)) check.safe.push(task.id);
      } catch (error) {
        this.#logFailure(task.id, error);
        check.failed.push({ taskId: task.id, reason: (error as Error).message });
      }
    }
    return check;
  }

  /** Records the task's current state and newest output on every row that names it and lacks it. */
  capture(sessionId: string, taskId: string): Promise<void> {
    return this.#queue(sessionId, taskId).then(
      () => {},
      (error: unknown) => this.#logFailure(taskId, error),
    );
  }

  /**
   * Runs a capture after any earlier one of the same task; rejects when it fails. Resolves true
   * when every row naming the task shows it as it is now.
   */
  #queue(sessionId: string, taskId: string): Promise<boolean> {
    const key = `${sessionId}/${taskId}`;
    const previous = this.#inFlight.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.#capture(sessionId, taskId));
    // What waits on the queue only needs to know it ended; the failure is the caller's to handle.
    const done: Promise<void> = run
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        if (this.#inFlight.get(key) === done) this.#inFlight.delete(key);
      });
    this.#inFlight.set(key, done);
    return run;
  }

  #logFailure(taskId: string, error: unknown): void {
    this.#deps.log?.(`the transcript could not keep task ${taskId}: ${(error as Error).message}`);
  }

  dispose(): void {
    this.#disposed = true;
  }

  #captureIfSettled(sessionId: string, taskId: string): void {
    const { source } = this.#deps;
    if (source.has(sessionId, taskId) && isSettled(source.row(sessionId, taskId).status))
      void this.capture(sessionId, taskId);
  }

  async #capture(sessionId: string, taskId: string): Promise<boolean> {
    const { source, sessions } = this.#deps;
    if (this.#disposed || !source.has(sessionId, taskId)) return false;
    const task = source.row(sessionId, taskId);
    const stale = sessions.rowsOfTask(sessionId, taskId).filter((row) => !shows(row.taskSnapshot, task));
    if (stale.length === 0) return true;
    const output = capOutput(await source.output(sessionId, taskId, SNAPSHOT_OUTPUT_LINES));
    if (this.#disposed) return false;
    const snapshot = snapshotOf(task, output, this.#now());
    for (const row of stale) sessions.update(row.id, { taskSnapshot: snapshot });
    return true;
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
