import type { TaskRow } from '../../shared/schemas/task.js';
import type { ToolDisplay } from '../../shared/schemas/message.js';
import { DroverError } from '../../shared/ipc/errors.js';

/** The answer a foreground run gives when it is handed to the background: the notice leads, output follows. */
export function adoptionNotice(row: TaskRow, waitedMs: number, follow: { read: string; stop: string }): string {
  return [
    `Command still running after ${formatDuration(waitedMs / 1000)}. It was NOT cancelled: it now runs as background task ${row.id} (hard timeout ${formatDuration(row.timeoutSeconds)}).`,
    `Follow it with ${follow.read}, or end it with ${follow.stop}.`,
    'Do NOT run this command again: it is already running, and a second copy would fight the first for the same ports, locks and files.',
  ].join('\n');
}

/** The same handover when the person asked for it before the wait was over (the model is told who moved it). */
export function requestedAdoptionNotice(row: TaskRow, follow: { read: string; stop: string }): string {
  return [
    `The person moved this command to the background after ${formatDuration(row.elapsedSeconds)}. It was NOT cancelled: it now runs as background task ${row.id} (hard timeout ${formatDuration(row.timeoutSeconds)}).`,
    `Follow it with ${follow.read}, or end it with ${follow.stop}.`,
    'Do NOT run this command again: it is already running, and a second copy would fight the first for the same ports, locks and files.',
  ].join('\n');
}

/** The answer when nothing could take the run over, so it was ended. */
export function refusedAdoptionNotice(row: TaskRow, reason: string, backgroundHint: string): string {
  return `Command was still running and could not be moved to the background (${reason}), so it was stopped. ${backgroundHint}`;
}

/** The operator's own words (REST's `notice` of a `!` line): what happened, nothing addressed to a model. */
export function movedNoticeForPerson(row: TaskRow, afterSeconds: number, requested: boolean): string {
  return `Moved to the background ${requested ? 'at your request ' : ''}after ${formatDuration(afterSeconds)}: it keeps running as task ${row.id} (hard timeout ${formatDuration(row.timeoutSeconds)}).`;
}

export function refusedNoticeForPerson(reason: string): string {
  return `Not moved to the background (${reason}), so it was stopped.`;
}

/** The same handover as facts the page words for the person. */
export function movedDisplay(row: TaskRow, afterSeconds: number, requested: boolean): ToolDisplay {
  return { kind: 'moved', taskId: row.id, afterSeconds, timeoutSeconds: row.timeoutSeconds, requested };
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${Number.isInteger(hours) ? hours : hours.toFixed(1)} h`;
}

/**
 * How long a handover that found the run already ending waits for its end to be recorded (the
 * log flushed and closed) before answering with the result; past it, the row as it stands.
 */
export const SETTLING_WAIT_MS = 10_000;

/** What a "Background now" request needs of the pool. */
export interface HandoverPool {
  row(sessionId: string, id: string): TaskRow;
  adopt(id: string): string | null;
}

/**
 * Foreground runs now waiting on their handover (the operator's `!` line, the model's foreground
 * shell call), so the person can hand one to the background at once instead of at the end of the
 * wait. The waiter races its wait against `requested`; `moveNow` adopts the run exactly as the
 * timed handover does and wakes the waiter, which tells the operator or the model as it would then.
 */
export class ForegroundHandovers {
  readonly #waiting = new Map<string, () => void>();

  /** Resolves when the person asks to hand this run over; call the returned `done` once the wait ends. */
  wait(taskId: string): { requested: Promise<'moved'>; done: () => void } {
    let wake!: () => void;
    const requested = new Promise<'moved'>((resolve) => (wake = () => resolve('moved')));
    this.#waiting.set(taskId, wake);
    return {
      requested,
      done: () => {
        if (this.#waiting.get(taskId) === wake) this.#waiting.delete(taskId);
      },
    };
  }

  /**
   * Hands a waiting foreground run to the background now. A run that is not waiting (it ended,
   * was handed over already, or was started in the background) is a conflict; so is a pool that
   * cannot take it (turned off, full): the run then goes on in the foreground, untouched.
   */
  moveNow(pool: HandoverPool, sessionId: string, taskId: string): TaskRow {
    const row = pool.row(sessionId, taskId);
    const wake = this.#waiting.get(taskId);
    if (!wake || !row.running) {
      throw new DroverError(
        'conflict',
        `Task ${taskId} is not a foreground command waiting to finish (${row.adopted || !row.foreground ? 'it already runs in the background' : `it is ${row.status}`})`,
      );
    }
    const refused = pool.adopt(taskId);
    if (refused !== null)
      throw new DroverError('conflict', `Not moved to the background: ${refused}. It goes on in the foreground.`);
    // The pool takes nothing over from a run that already exited and is being recorded as ended
    // (its row still says running until then): its wait ends with the result, not a handover.
    if (!pool.row(sessionId, taskId).adopted)
      throw new DroverError(
        'conflict',
        `Task ${taskId} is not a foreground command waiting to finish (it has just ended)`,
      );
    this.#waiting.delete(taskId);
    wake();
    return pool.row(sessionId, taskId);
  }
}
