import { SvelteMap } from 'svelte/reactivity';
import type { TaskOutput, TaskRow } from '@shared/contract.js';
import { isSettled, SILENT_AFTER_SECONDS } from '@shared/domain/task-status.js';
import { DroverError } from '@shared/ipc/drover-error.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** Lines of output a tool row shows at first. */
export const DEFAULT_TAIL = 40;
/** Output shown for a task is refetched at most this often while it prints. */
export const OUTPUT_REFETCH_MS = 500;

interface Fetcher {
  timer: ReturnType<typeof setTimeout> | null;
  inFlight: number;
  /** More output arrived while a fetch was on its way: fetch again after it. */
  dirty: boolean;
  lastAt: number;
  seq: number;
}

/** What the output side tells the task list: a fresher row, or a task the service no longer knows. */
export interface OutputHooks {
  /** A row fetched with the output; `since` is the list's row version when the fetch began. */
  row(task: TaskRow, since: number): void;
  /** The list's current row version of a task (it counts row events). */
  rowVersion(taskId: string): number;
  gone(taskId: string): void;
}

/**
 * The output of the tasks a view is showing (`watch`), fetched on demand: a `taskOutput` event
 * only says there is more, so watched tasks refetch at most every OUTPUT_REFETCH_MS, and once
 * more when they settle so the final lines show.
 */
export class TaskOutputs {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  readonly #hooks: OutputHooks;
  readonly #outputs = new SvelteMap<string, TaskOutput>();
  readonly #errors = new SvelteMap<string, string>();
  /** When each task last printed, from the output events: "silent for" is kept current locally, never polled. */
  readonly #lastOutput = new SvelteMap<string, number>();
  readonly #watched = new Map<string, number>();
  readonly #tails = new Map<string, number>();
  /** Tasks whose output was fetched after they settled, with the tail fetched: nothing newer can come. */
  readonly #final = new Map<string, number>();
  readonly #fetchers = new Map<string, Fetcher>();
  #alive = false;

  constructor(api: DroverApi, sessionId: string, hooks: OutputHooks) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#hooks = hooks;
  }

  /** The last output fetched for the task. */
  output(taskId: string): TaskOutput | undefined {
    return this.#outputs.get(taskId);
  }

  /** The tail (in lines) the task's output is fetched with. */
  tail(taskId: string): number {
    return this.#tails.get(taskId) ?? DEFAULT_TAIL;
  }

  error(taskId: string): string | null {
    return this.#errors.get(taskId) ?? null;
  }

  start(): void {
    this.#alive = true;
  }

  stop(): void {
    this.#alive = false;
    for (const fetcher of this.#fetchers.values()) clearTimer(fetcher);
    this.#fetchers.clear();
  }

  /** Shows the task's output: fetches it now, and keeps it current while it runs. Returns a function that stops watching. */
  watch(taskId: string, tail = DEFAULT_TAIL): () => void {
    this.#watched.set(taskId, (this.#watched.get(taskId) ?? 0) + 1);
    const known = this.#final.get(taskId);
    if (known === undefined || known < tail || this.tail(taskId) !== tail) void this.load(taskId, tail);
    return () => {
      const count = (this.#watched.get(taskId) ?? 1) - 1;
      if (count > 0) {
        this.#watched.set(taskId, count);
        return;
      }
      this.#watched.delete(taskId);
      const fetcher = this.#fetchers.get(taskId);
      if (fetcher) clearTimer(fetcher);
    };
  }

  /** Fetches the last `tail` lines of the task's output (and its row). */
  async load(taskId: string, tail = this.tail(taskId)): Promise<void> {
    this.#tails.set(taskId, tail);
    const fetcher = this.#fetcher(taskId);
    const seq = ++fetcher.seq;
    fetcher.inFlight++;
    fetcher.dirty = false;
    fetcher.lastAt = Date.now();
    const since = this.#hooks.rowVersion(taskId);
    try {
      const { task, output } = await this.#api.getTask({ sessionId: this.#sessionId, taskId, tail });
      if (!this.#alive || seq !== fetcher.seq) return;
      this.#hooks.row(task, since);
      this.#outputs.set(taskId, output);
      this.#errors.delete(taskId);
      if (isSettled(task.status)) this.#final.set(taskId, tail);
    } catch (error) {
      if (!this.#alive || seq !== fetcher.seq) return;
      if (error instanceof DroverError && error.code === 'not_found') this.#hooks.gone(taskId);
      else this.#errors.set(taskId, `Could not load the output: ${errorMessage(error)}`);
    } finally {
      fetcher.inFlight--;
      if (this.#alive && fetcher.inFlight === 0 && fetcher.dirty) this.#schedule(taskId);
    }
  }

  /** The task printed more: a watched one refetches (coalesced). */
  printed(taskId: string): void {
    this.#lastOutput.set(taskId, Date.now());
    if (this.#watched.has(taskId)) this.#schedule(taskId);
  }

  /** Seconds a running task has been quiet, once past the threshold; null otherwise. Pass a ticking clock. */
  silentFor(task: TaskRow, now: number): number | null {
    if (task.status !== 'running' || !task.startedAt) return null;
    const last =
      this.#lastOutput.get(task.id) ?? (task.lastOutputAt ? Date.parse(task.lastOutputAt) : Date.parse(task.startedAt));
    const quiet = Math.floor((now - last) / 1000);
    return quiet >= SILENT_AFTER_SECONDS ? quiet : null;
  }

  /** The task just settled: its final lines are fetched now where they are shown. */
  settled(taskId: string): void {
    if (this.#watched.has(taskId) || this.#outputs.has(taskId)) this.#schedule(taskId, true);
  }

  /** After the list was loaded again (a reconnect): every watched task's output too. */
  reloadWatched(): void {
    for (const id of this.#watched.keys()) this.#schedule(id, true);
  }

  /** The tasks were removed: their output is forgotten. */
  forget(taskIds: readonly string[]): void {
    for (const id of taskIds) {
      this.#outputs.delete(id);
      this.#final.delete(id);
    }
  }

  /** Coalesces refetches of a watched task's output to one per OUTPUT_REFETCH_MS. */
  #schedule(taskId: string, now = false): void {
    const fetcher = this.#fetcher(taskId);
    if (fetcher.inFlight > 0) {
      fetcher.dirty = true;
      return;
    }
    if (fetcher.timer) {
      if (!now) return;
      clearTimer(fetcher);
    }
    const wait = now ? 0 : Math.max(0, fetcher.lastAt + OUTPUT_REFETCH_MS - Date.now());
    if (wait === 0) {
      void this.load(taskId);
      return;
    }
    fetcher.timer = setTimeout(() => {
      fetcher.timer = null;
      if (this.#alive) void this.load(taskId);
    }, wait);
  }

  #fetcher(taskId: string): Fetcher {
    let fetcher = this.#fetchers.get(taskId);
    if (!fetcher) {
      fetcher = { timer: null, inFlight: 0, dirty: false, lastAt: 0, seq: 0 };
      this.#fetchers.set(taskId, fetcher);
    }
    return fetcher;
  }
}

function clearTimer(fetcher: Fetcher): void {
  if (fetcher.timer) clearTimeout(fetcher.timer);
  fetcher.timer = null;
}
