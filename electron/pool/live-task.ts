import { OutputWindow } from './output-window.js';
import type { RunnerHandle } from './runner.js';
import type { TaskLog } from './task-log.js';
import type { TaskRecord } from './task-record.js';
import type { EndReason } from './pool-types.js';

/**
 * Output events go out on one tick of this many ms for every task: at most one per task per tick,
 * and the tasks that printed in a tick are told together, in one turn of the event loop, so a page
 * gets them in one frame (ws-server.ts) and updates once, not once per task at scattered times.
 */
export const OUTPUT_EVENT_INTERVAL_MS = 250;

/**
 * The shared output tick: `add` a task that printed; when the tick comes, `emit` is called once
 * for each task added since the last one, in the order they were added. The timer runs only while
 * some task waits for it.
 */
export class OutputTicks {
  readonly #emit: (live: Live) => void;
  readonly #intervalMs: number;
  #due = new Set<Live>();
  #timer: NodeJS.Timeout | null = null;

  constructor(emit: (live: Live) => void, intervalMs = OUTPUT_EVENT_INTERVAL_MS) {
    this.#emit = emit;
    this.#intervalMs = intervalMs;
  }

  add(live: Live): void {
    this.#due.add(live);
    this.#timer ??= setTimeout(() => this.#tick(), this.#intervalMs);
  }

  /** The task's end reports its output itself: it waits for no tick any more. */
  drop(live: Live): void {
    this.#due.delete(live);
    if (this.#due.size === 0 && this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  #tick(): void {
    this.#timer = null;
    const due = this.#due;
    this.#due = new Set();
    for (const live of due) this.#emit(live);
  }
}

/** A task of this run that has not settled: its handle, output window and log. */
export interface Live {
  record: TaskRecord;
  window: OutputWindow;
  log: TaskLog | null;
  handle: RunnerHandle | null;
  lastOutputAt: number | null;
  timer: NodeJS.Timeout | null;
  endReason: EndReason | null;
  endDetail: string | null;
  settled: Promise<TaskRecord>;
  resolveSettled: (record: TaskRecord) => void;
  /** Started, runner not yet answered: counts against the caps. */
  launching: boolean;
  /** Its start, once begun: a stop that comes meanwhile waits for it, then ends what started. */
  launched: Promise<void> | null;
  /** Its shell exited while other processes of it still run. */
  leaderExited: boolean;
  /** Processes found outside its container by its mark and ended with it. */
  outside: number[];
  /** Its end is being recorded. */
  settling: boolean;
}

export function newLive(record: TaskRecord, windowBytes: number): Live {
  let resolveSettled!: (record: TaskRecord) => void;
  const settled = new Promise<TaskRecord>((resolve) => (resolveSettled = resolve));
  return {
    record,
    window: new OutputWindow(windowBytes),
    log: null,
    handle: null,
    lastOutputAt: null,
    timer: null,
    endReason: null,
    endDetail: null,
    settled,
    resolveSettled,
    launching: false,
    launched: null,
    leaderExited: false,
    outside: [],
    settling: false,
  };
}

/**
 * Takes a chunk of a task's output: into the window and the log, with backpressure when the
 * disk is behind; the task waits for the next output tick.
 */
export function appendOutput(live: Live, chunk: Buffer, now: number, ticks: Pick<OutputTicks, 'add'>): void {
  live.window.append(chunk);
  live.lastOutputAt = now;
  if (live.log && !live.log.write(chunk) && live.handle) {
    // The disk is behind: stop reading the terminal until it catches up, so memory stays bounded.
    const handle = live.handle;
    handle.pause();
    live.log.onDrain(() => handle.resume());
  }
  ticks.add(live);
}

/** The value of `promise`, or null if `ms` passes first or the signal aborts. */
export async function within<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | null> {
  if (signal?.aborted) return null;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const expired = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms).unref();
    onAbort = () => resolve(null);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
