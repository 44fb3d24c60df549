import type { TaskRow } from '@shared/contract.js';
import type { FinishedCounts, FinishedFilter } from '@shared/schemas/task-page.js';
import { emptyCounts, matchesFilter } from '@shared/domain/task-order.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** How long Clear can be undone: the tasks and their logs are removed only after this. */
export const UNDO_CLEAR_MS = 6_000;

interface PendingClear {
  /** Names the clear: entries are replaced whole as the host answers. */
  key: number;
  filter: FinishedFilter;
  /** What the clear took from each count (under a filter, its background share once the host answered). */
  taken: FinishedCounts;
  /** The ids the person saw (every finished task under the filter then), once the host answered. */
  ids: ReadonlySet<string> | null;
  fetched: Promise<readonly string[]>;
  /**
   * Set once the host removed them, to the number of the latest load then: a load numbered past
   * it counts without them, and until one lands the old totals must not come back.
   */
  committedAt: number | null;
}

const COUNT_KEYS = ['all', 'succeeded', 'failed', 'stopped', 'timed_out', 'background'] as const;

/**
 * Clear in the Finished list, with its undo window. The list is loaded in pages, so what the
 * person saw is every finished task under the filter at the moment of Clear: their ids are asked
 * for at once, hidden at once, and removed only when the window closes.
 */
export class FinishedClear {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #pending = $state.raw<readonly PendingClear[]>([]);
  #nextKey = 0;
  /** The number of the latest load whose counts landed. */
  #landedSeq = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #clearing = $state(false);
  #error = $state<string | null>(null);

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  get clearing(): boolean {
    return this.#clearing;
  }

  /** Why the last clear failed, or which tasks it kept. */
  get error(): string | null {
    return this.#error;
  }

  /** How many tasks the clears in the window took, while they can be undone; null otherwise. */
  get undoable(): number | null {
    const open = this.#pending.filter((entry) => entry.committedAt === null);
    if (open.length === 0) return null;
    return open.reduce((sum, entry) => sum + entry.taken.all, 0);
  }

  /** Hidden by a clear in the window. */
  hides(task: TaskRow): boolean {
    return this.#pending.some((entry) => (entry.ids ? entry.ids.has(task.id) : matchesFilter(task, entry.filter)));
  }

  /** The counts as the person sees them: without what the clears in the window took. */
  shown(counts: FinishedCounts): FinishedCounts {
    if (this.#pending.length === 0) return counts;
    // Field by field: a task that finishes inside the window is counted, as it is listed.
    const shown = { ...counts };
    for (const { taken } of this.#pending)
      for (const key of COUNT_KEYS) shown[key] = Math.max(0, shown[key] - taken[key]);
    return shown;
  }

  /** Starts a clear of everything under `filter` (`counts`: as shown); a second one inside the window joins the first. */
  start(filter: FinishedFilter, counts: FinishedCounts, commit: () => void): void {
    const key = this.#nextKey++;
    const answer = this.#api.finishedTaskIds({ sessionId: this.#sessionId, filter });
    const fetched = answer.then(({ ids }) => ids);
    const taken =
      filter === 'all' ? { ...counts } : { ...emptyCounts(), all: counts[filter], [filter]: counts[filter] };
    this.#pending = [...this.#pending, { key, filter, taken, ids: null, fetched, committedAt: null }];
    answer.then(
      ({ ids, background }) => {
        // Under a filter, the background share of what it took is known only from the host.
        const share = filter === 'all' ? taken : { ...taken, background: Math.min(background, counts.background) };
        this.#update([key], (entry) => ({ ...entry, taken: share, ids: new Set(ids) }));
      },
      (error: unknown) => {
        this.#pending = this.#pending.filter((kept) => kept.key !== key);
        this.#error = `Could not clear: ${errorMessage(error)}`;
      },
    );
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(commit, UNDO_CLEAR_MS);
  }

  /** Brings the cleared tasks back (nothing was removed yet). */
  undo(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = this.#pending.filter((entry) => entry.committedAt !== null);
  }

  /**
   * The counts of the load numbered `seq` landed: the clears the host had removed before that
   * load was sent are in them, so they stop being taken away here.
   */
  landed(seq: number): void {
    this.#landedSeq = Math.max(this.#landedSeq, seq);
    if (this.#pending.some((entry) => entry.committedAt !== null && entry.committedAt < seq))
      this.#pending = this.#pending.filter((entry) => entry.committedAt === null || entry.committedAt >= seq);
  }

  /**
   * Removes the cleared tasks now; answers the ids the host removed. `loadSeq` reads the number of
   * the latest load: one sent after the removal request counts without the removed tasks.
   */
  async commit(loadSeq: () => number): Promise<readonly string[]> {
    const keys = this.#pending.filter((entry) => entry.committedAt === null).map((entry) => entry.key);
    if (keys.length === 0) return [];
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#clearing = true;
    this.#error = null;
    let committed = false;
    try {
      const fetches = this.#pending.filter((entry) => keys.includes(entry.key)).map((entry) => entry.fetched);
      const lists = await Promise.all(fetches.map((fetched) => fetched.catch(() => [] as string[])));
      const taskIds = [...new Set(lists.flat())];
      if (taskIds.length === 0) return [];
      const sentAfter = loadSeq();
      const { removed, kept } = await this.#api.clearFinishedTasks({ sessionId: this.#sessionId, taskIds });
      // Still taken from the counts until a load sent after the removal lands (its event starts one).
      this.#update(keys, (entry) => ({ ...entry, committedAt: sentAfter }));
      committed = true;
      // The reload the removal's event started may have landed already.
      this.landed(this.#landedSeq);
      // A task whose transcript record could not be saved stays, and the panel says why.
      if (kept && kept.length > 0) {
        const first = kept[0]!;
        this.#error = `Kept ${kept.map((entry) => entry.taskId).join(', ')}: its transcript record could not be saved first (${first.reason}).`;
      }
      return removed;
    } catch (error) {
      this.#error = `Could not clear: ${errorMessage(error)}`;
      return [];
    } finally {
      // What did not reach the host comes back.
      if (!committed) this.#pending = this.#pending.filter((entry) => !keys.includes(entry.key));
      this.#clearing = false;
    }
  }

  #update(keys: readonly number[], change: (entry: PendingClear) => PendingClear): void {
    this.#pending = this.#pending.map((entry) => (keys.includes(entry.key) ? change(entry) : entry));
  }
}
