import type { TaskRow } from '../../shared/schemas/task.js';

/** Timers the pings run on: the globals, or a test's clock so nothing sleeps. */
export interface PingClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: PingClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface MonitorPingsOptions {
  /** Marks the ping sent; false when the monitor no longer runs or it was sent already (then nothing wakes). */
  notePinged(sessionId: string, taskId: string): boolean;
  /** The monitor's row as it is now (after notePinged). */
  row(sessionId: string, taskId: string): TaskRow | null;
  /** Wakes the agent with the ping. */
  ping(row: TaskRow): void;
  clock?: PingClock;
}

/**
 * The scheduled monitors' first wake: one timer per running monitor whose ping is due, armed
 * from its row (pingDueAt) and dropped when it settles or the ping went out.
 */
export class MonitorPings {
  readonly #options: MonitorPingsOptions;
  readonly #clock: PingClock;
  readonly #timers = new Map<string, { due: string; handle: unknown }>();

  constructor(options: MonitorPingsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
  }

  /** Feed every task change. */
  onTaskChanged(row: TaskRow): void {
    const armed = this.#timers.get(row.id);
    if (!row.running || row.pingDueAt === null) {
      if (armed) this.#clear(row.id, armed.handle);
      return;
    }
    if (armed?.due === row.pingDueAt) return;
    if (armed) this.#clock.clearTimeout(armed.handle);
    const delay = Math.max(0, Date.parse(row.pingDueAt) - this.#clock.now());
    const handle = this.#clock.setTimeout(() => this.#fire(row.sessionId, row.id), delay);
    this.#timers.set(row.id, { due: row.pingDueAt, handle });
  }

  dispose(): void {
    for (const [id, timer] of this.#timers) this.#clear(id, timer.handle);
  }

  #fire(sessionId: string, taskId: string): void {
    this.#timers.delete(taskId);
    if (!this.#options.notePinged(sessionId, taskId)) return;
    const row = this.#options.row(sessionId, taskId);
    if (row) this.#options.ping(row);
  }

  #clear(id: string, handle: unknown): void {
    this.#clock.clearTimeout(handle);
    this.#timers.delete(id);
  }
}
