import type { TaskRow } from '@shared/contract.js';
import type { FinishedCounts, FinishedCursor, FinishedFilter, FinishedPage } from '@shared/schemas/task-page.js';
import {
  compareCursors,
  countFinished,
  emptyCounts,
  finishedCursor,
  isFinishedTask,
  matchesFilter,
} from '@shared/domain/task-order.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/**
 * The Finished list as far as it has loaded (issue 18): the counts of every finished task, and
 * the ids of the rows loaded so far under the filter, in the panel's order. Pages load as the list
 * scrolls; a task that settles meanwhile joins the loaded part when it sorts inside it, and is
 * left to a later page otherwise (the cursor is a keyset, so no row comes twice or goes missing).
 * The rows themselves live in TasksState, which keeps each current.
 */
export class FinishedPages {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  readonly #rowOf: (id: string) => TaskRow | undefined;
  #counts = $state<FinishedCounts>(emptyCounts());
  #filter = $state<FinishedFilter>('all');
  #ids = $state.raw<readonly string[]>([]);
  /** The last loaded row's place; null once everything under the filter is loaded. */
  #next = $state.raw<FinishedCursor | null>(null);
  /**
   * The filter's first page has not landed (on its way, or it failed): nothing is known of the
   * order yet, so rows that change meanwhile wait in `#held` and are placed once it lands.
   */
  #needsFirst = $state(false);
  readonly #held = new Set<string>();
  #loadingMore = $state(false);
  #error = $state<string | null>(null);
  /** Answers for another filter or an older load are dropped. */
  #seq = 0;

  /** `rowOf`: the current row of a loaded id (TasksState holds them). */
  constructor(api: DroverApi, sessionId: string, rowOf: (id: string) => TaskRow | undefined) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#rowOf = rowOf;
  }

  get counts(): Readonly<FinishedCounts> {
    return this.#counts;
  }

  get filter(): FinishedFilter {
    return this.#filter;
  }

  /** Loaded ids, newest first. */
  get ids(): readonly string[] {
    return this.#ids;
  }

  /** More rows wait under the filter. */
  get hasMore(): boolean {
    return this.#next !== null || this.#needsFirst;
  }

  get loadingMore(): boolean {
    return this.#loadingMore;
  }

  /** Why the last page could not load. */
  get error(): string | null {
    return this.#error;
  }

  /** A fresh start from the session's open answer (its counts and first page). */
  reset(counts: FinishedCounts, filter: FinishedFilter, page: FinishedPage): void {
    this.#seq++;
    this.#counts = { ...counts };
    this.#filter = filter;
    this.#ids = page.tasks.map((task) => task.id);
    this.#next = page.next;
    this.#needsFirst = false;
    this.#held.clear();
    this.#loadingMore = false;
    this.#error = null;
  }

  /** The counts afresh, leaving the rows and the filter as they are (a reload answered for another filter). */
  recount(counts: FinishedCounts): void {
    this.#counts = { ...counts };
  }

  /**
   * Shows another filter: its first page replaces the rows (the counts hold for every filter).
   * `take` receives the rows of each page that arrives.
   */
  async showFilter(filter: FinishedFilter, take: (rows: readonly TaskRow[]) => void): Promise<void> {
    if (filter === this.#filter) return;
    this.#filter = filter;
    this.#ids = [];
    this.#next = null;
    this.#needsFirst = true;
    this.#held.clear();
    await this.#load(undefined, take);
  }

  /** Loads the next page (the first again when it failed), unless one is on its way or none is left. */
  async more(take: (rows: readonly TaskRow[]) => void): Promise<void> {
    if (this.#loadingMore) return;
    if (this.#needsFirst) await this.#load(undefined, take);
    else if (this.#next !== null) await this.#load(this.#next, take);
  }

  async #load(after: FinishedCursor | undefined, take: (rows: readonly TaskRow[]) => void): Promise<void> {
    const seq = ++this.#seq;
    const filter = this.#filter;
    this.#loadingMore = true;
    this.#error = null;
    try {
      const page = await this.#api.pageFinishedTasks({
        sessionId: this.#sessionId,
        filter,
        ...(after ? { after } : {}),
      });
      if (seq !== this.#seq) return;
      take(page.tasks);
      const known = new Set(this.#ids);
      this.#ids = [...this.#ids, ...page.tasks.map((task) => task.id).filter((id) => !known.has(id))];
      this.#next = page.next;
      if (after === undefined) this.#placeHeld();
    } catch (error) {
      if (seq === this.#seq) this.#error = `Could not load more finished tasks: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#seq) this.#loadingMore = false;
    }
  }

  /**
   * A row changed from `before` (undefined: not known here) to `after`. `counted`: a row not known
   * here was already in the counts this list started from (it existed when the session opened).
   */
  changed(before: TaskRow | undefined, after: TaskRow, counted: boolean): void {
    const was = before ? isFinishedTask(before) : counted && isFinishedTask(after);
    const is = isFinishedTask(after);
    if (was || is) {
      const counts = { ...this.#counts };
      if (was) countFinished(counts, before ?? after, -1);
      if (is) countFinished(counts, after, 1);
      this.#counts = counts;
    }
    if (this.#needsFirst) {
      this.#held.add(after.id);
      return;
    }
    this.#place(after);
  }

  /** Rows that changed while the first page was on its way, placed now that it landed. */
  #placeHeld(): void {
    this.#needsFirst = false;
    const held = [...this.#held];
    this.#held.clear();
    for (const id of held) {
      const row = this.#rowOf(id);
      if (row) this.#place(row);
    }
  }

  /** Into the loaded rows, or out of them, as the row now stands. */
  #place(after: TaskRow): void {
    const is = isFinishedTask(after);
    const listed = this.#ids.includes(after.id);
    if (listed && !(is && matchesFilter(after, this.#filter))) this.#ids = this.#ids.filter((id) => id !== after.id);
    else if (!listed && is && matchesFilter(after, this.#filter)) this.#insert(after);
  }

  /** Rows removed (cleared) leave the list; the counts come afresh with the reload that follows. */
  removed(ids: readonly string[]): void {
    const gone = new Set(ids);
    this.#ids = this.#ids.filter((id) => !gone.has(id));
    for (const id of ids) this.#held.delete(id);
  }

  /** Into the loaded part when it sorts inside it (or everything is loaded); later pages bring the rest. */
  #insert(row: TaskRow): void {
    const key = finishedCursor(row);
    if (this.#next !== null && compareCursors(key, this.#next) > 0) return;
    // The loaded ids are in order; a settling task is usually the newest, so look from the top.
    const index = this.#ids.findIndex((id) => {
      const known = this.#rowOf(id);
      return known !== undefined && compareCursors(finishedCursor(known), key) > 0;
    });
    const ids = [...this.#ids];
    ids.splice(index === -1 ? ids.length : index, 0, row.id);
    this.#ids = ids;
  }
}
