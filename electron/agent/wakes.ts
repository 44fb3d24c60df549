import type { TaskRow } from '../../shared/schemas/task.js';
import { isSettled } from '../../shared/schemas/task.js';
import { formatDuration } from '../pool/adoption.js';
import { wakeMessage } from './prompt.js';
import { didNotSucceed, exitWords } from './task-words.js';

/** Tasks ending within this window of each other cost one turn. */
export const WAKE_SETTLE_MS = 750;
export const DEFAULT_MAX_WAKES_PER_SESSION = 50;

export interface WakeDeps {
  /** Starts an automated turn; it waits for any turn in flight. */
  wake(sessionId: string, text: string): void;
  /** True while Drover shuts down: a stop during drain is terminal and wakes nothing. */
  shuttingDown(): boolean;
  maxWakesPerSession: () => number;
  log: (message: string) => void;
}

/**
 * Starts a turn when a task that asked for it (notify_on_finish) reaches a terminal state:
 * a plain statement of the outcome, never its output. A burst costs one turn; a per-session
 * cap stops a loop of self-renewing wakes.
 */
export class WakeScheduler {
  readonly #deps: WakeDeps;
  readonly #pending = new Map<string, { rows: TaskRow[]; timer: NodeJS.Timeout }>();
  readonly #announced = new Set<string>();
  readonly #wakes = new Map<string, number>();
  readonly #capLogged = new Set<string>();

  constructor(deps: WakeDeps) {
    this.#deps = deps;
  }

  /** Feed every task change; only settled notifying tasks matter. */
  onTaskChanged(row: TaskRow): void {
    if (!row.notifyOnFinish || !isSettled(row.status) || row.status === 'orphaned' || row.status === 'lost') return;
    if (this.#announced.has(row.id) || this.#deps.shuttingDown()) return;
    this.#announced.add(row.id);
    const batch = this.#pending.get(row.sessionId);
    if (batch) {
      batch.rows.push(row);
      return;
    }
    const timer = setTimeout(() => this.#fire(row.sessionId), WAKE_SETTLE_MS);
    this.#pending.set(row.sessionId, { rows: [row], timer });
  }

  dispose(): void {
    for (const batch of this.#pending.values()) clearTimeout(batch.timer);
    this.#pending.clear();
  }

  #fire(sessionId: string): void {
    const batch = this.#pending.get(sessionId);
    this.#pending.delete(sessionId);
    if (!batch || this.#deps.shuttingDown()) return;
    const used = this.#wakes.get(sessionId) ?? 0;
    if (used >= this.#deps.maxWakesPerSession()) {
      if (!this.#capLogged.has(sessionId)) {
        this.#capLogged.add(sessionId);
        this.#deps.log(
          `background_wake_capped: session ${sessionId} reached ${used} wake-ups; finished tasks no longer start turns`,
        );
      }
      return;
    }
    this.#wakes.set(sessionId, used + 1);
    this.#deps.wake(sessionId, wakeMessage(batch.rows.map(describe)));
  }
}

export function describe(row: TaskRow): string {
  const parts = [
    `${row.id} (${row.command.length > 80 ? `${row.command.slice(0, 77)}…` : row.command}): ${row.status}`,
  ];
  const exit = exitWords(row);
  if (exit) parts.push(exit);
  parts.push(`runtime ${formatDuration(row.elapsedSeconds)}`);
  if (row.error) parts.push(`error: ${row.error}`);
  // A conventional exit (grep's 1: "no matches found") is an answer, told without "did NOT succeed".
  if (row.status !== 'succeeded' && !(row.status === 'failed' && !didNotSucceed(row))) parts.push('did NOT succeed');
  return parts.join(', ');
}
