import type { TaskRow } from '@shared/contract.js';
import { emptyCounts, matchesFilter, type FinishedCounts, type FinishedFilter } from '@shared/schemas/task-page.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** How long Clear can be undone: the tasks and their logs are removed only after this. */
export const UNDO_CLEAR_MS = 6_000;

interface PendingClear {
  filter: FinishedFilter;
  /** What the list counted under the filter when the person chose Clear. */
  taken: FinishedCounts;
  /** The ids the person saw (every finished task under the filter then), once the host answered. */
  ids: ReadonlySet<string> | null;
  fetched: Promise<readonly string[]>;
}

/**
 * Clear in the Finished list, with its undo window. The list is loaded in pages, so what the
 * person saw is every finished task under the filter at the moment of Clear: their ids are asked
 * for at once, hidden at once, and removed only when the window closes.
 */
export class FinishedClear {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #pending = $state.raw<readonly PendingClear[]>([]);
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
    if (this.#pending.length === 0) return null;
    return this.#pending.reduce((sum, entry) => sum + entry.taken[entry.filter === 'all' ? 'all' : entry.filter], 0);
  }

  /** Hidden by a clear in the window. */
  hides(task: TaskRow): boolean {
    return this.#pending.some((entry) => (entry.ids ? entry.ids.has(task.id) : matchesFilter(task, entry.filter)));
  }

  /** The counts as the person sees them: without what the clears in the window took. */
  shown(counts: FinishedCounts): FinishedCounts {
    if (this.#pending.length === 0) return counts;
    const shown = { ...counts };
    for (const { filter, taken } of this.#pending) {
      if (filter === 'all') return emptyCounts();
      shown[filter] = Math.max(0, shown[filter] - taken[filter]);
      shown.all = Math.max(0, shown.all - taken[filter]);
    }
    return shown;
  }

  /** Starts a clear of everything under `filter`; a second one inside the window joins the first. */
  start(filter: FinishedFilter, counts: FinishedCounts, commit: () => void): void {
    const fetched = this.#api.finishedTaskIds({ sessionId: this.#sessionId, filter }).then(({ ids }) => ids);
    const entry: PendingClear = { filter, taken: { ...counts }, ids: null, fetched };
    this.#pending = [...this.#pending, entry];
    fetched.then(
      (ids) => {
        if (this.#pending.includes(entry))
          this.#pending = this.#pending.map((kept) => (kept === entry ? { ...entry, ids: new Set(ids) } : kept));
      },
      (error: unknown) => {
        this.#pending = this.#pending.filter((kept) => kept !== entry);
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
    this.#pending = [];
  }

  /** Removes the cleared tasks now; answers the ids the host removed. */
  async commit(): Promise<readonly string[]> {
    const pending = this.#pending;
    if (pending.length === 0) return [];
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#clearing = true;
    this.#error = null;
    try {
      const lists = await Promise.all(pending.map((entry) => entry.fetched.catch(() => [] as string[])));
      const taskIds = [...new Set(lists.flat())];
      if (taskIds.length === 0) return [];
      const { removed, kept } = await this.#api.clearFinishedTasks({ sessionId: this.#sessionId, taskIds });
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
      this.#pending = this.#pending.filter((entry) => !pending.includes(entry));
      this.#clearing = false;
    }
  }
}
