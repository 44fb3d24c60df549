import type { TaskRow } from '../../shared/schemas/task.js';
import {
  compareCursors,
  countFinished,
  emptyCounts,
  finishedCursor,
  isFinishedTask,
  matchesFilter,
  taskNumber,
  type FinishedCounts,
  type FinishedCursor,
  type FinishedFilter,
  type FinishedPage,
  type OpenTasks,
} from '../../shared/schemas/task-page.js';

interface Keyed {
  row: TaskRow;
  key: FinishedCursor;
}

/**
 * A session's settled rows in the Finished order, sorted once and kept (issue 18: opening a big
 * session). A settled row never changes within a run (the index keeps it, and drops this order
 * whenever the rows it holds change), so opening the panel or asking for a later page no longer
 * sorts and counts every row of the session: only the rows this order does not hold (live tasks,
 * leftovers, orphans, rows not settled when it was built) are looked at, and a page is cut by a
 * binary search. The answers are those of `openTasks` and `finishedPage` (shared/schemas/task-page.ts)
 * over all the rows, which test/pool/settled-order.test.ts checks against each other.
 */
export class SettledOrder {
  readonly #ids = new Set<string>();
  /** Every row held, in the Finished order (newest first). */
  readonly #all: Keyed[] = [];
  /** The rows under one outcome filter, cut from #all the first time that filter is asked for. */
  readonly #byFilter = new Map<FinishedFilter, Keyed[]>();
  readonly #counts = emptyCounts();
  readonly #newest: number = 0;

  /** `rows`: settled rows of one session; any that is not in the Finished list (live, a leftover) is left to the caller. */
  constructor(rows: Iterable<TaskRow>) {
    for (const row of rows) {
      if (!isFinishedTask(row)) continue;
      this.#ids.add(row.id);
      this.#all.push({ row, key: finishedCursor(row) });
      countFinished(this.#counts, row, 1);
      this.#newest = Math.max(this.#newest, taskNumber(row.id));
    }
    this.#all.sort((a, b) => compareCursors(a.key, b.key));
    this.#byFilter.set('all', this.#all);
  }

  /** Whether this order holds the row of `id` (the caller leaves it out of `others`). */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  get size(): number {
    return this.#all.length;
  }

  /**
   * What the panel opens with: `others` are the session's rows this order does not hold, in the
   * session's order (oldest first); the live ones among them are listed whole, as they come.
   */
  open(others: readonly TaskRow[], filter: FinishedFilter, limit: number): OpenTasks {
    const counts: FinishedCounts = { ...this.#counts };
    const live: TaskRow[] = [];
    let newest = this.#newest;
    for (const row of others) {
      newest = Math.max(newest, taskNumber(row.id));
      if (isFinishedTask(row)) countFinished(counts, row, 1);
      else live.push(row);
    }
    return { live, counts, finished: this.page(others, filter, null, limit), newest };
  }

  /** The `limit` finished rows under `filter` after `after` (from the top when null), this order's and `others`' together. */
  page(others: readonly TaskRow[], filter: FinishedFilter, after: FinishedCursor | null, limit: number): FinishedPage {
    const held = this.#sorted(filter);
    const from = after === null ? 0 : firstAfter(held, after);
    const extra: Keyed[] = [];
    for (const row of others) {
      if (!isFinishedTask(row) || !matchesFilter(row, filter)) continue;
      const key = finishedCursor(row);
      if (after === null || compareCursors(after, key) < 0) extra.push({ row, key });
    }
    extra.sort((a, b) => compareCursors(a.key, b.key));
    const page: Keyed[] = [];
    let i = from;
    let j = 0;
    while (page.length < limit && (i < held.length || j < extra.length)) {
      const takeHeld = j >= extra.length || (i < held.length && compareCursors(held[i]!.key, extra[j]!.key) <= 0);
      page.push(takeHeld ? held[i++]! : extra[j++]!);
    }
    const remaining = held.length - from + extra.length;
    return { tasks: page.map((entry) => entry.row), next: remaining > limit ? page[page.length - 1]!.key : null };
  }

  #sorted(filter: FinishedFilter): Keyed[] {
    let rows = this.#byFilter.get(filter);
    if (!rows) {
      rows = this.#all.filter((entry) => matchesFilter(entry.row, filter));
      this.#byFilter.set(filter, rows);
    }
    return rows;
  }
}

/** The index of the first row that comes after `after` in the order (rows.length when none does). */
function firstAfter(rows: readonly Keyed[], after: FinishedCursor): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareCursors(after, rows[middle]!.key) < 0) high = middle;
    else low = middle + 1;
  }
  return low;
}
