import { z } from 'zod';
import { FINISHED_PAGE_DEFAULT, FINISHED_PAGE_MAX } from '../domain/page-sizes.js';
import { TaskRowSchema, type TaskRow } from './task.js';
import {
  compareCursors,
  countFinished,
  emptyCounts,
  finishedCursor,
  isBackgroundTask,
  isFinishedTask,
  matchesFilter,
  taskNumber,
} from '../domain/task-order.js';

/**
 * Paging the tasks panel (issue 18, "Opening a big session"): a session opens with its live
 * tasks whole, the Finished counts and the first page of finished rows; later pages load as the
 * list scrolls. The order and the outcome kinds are the rules the panel shows, kept in one place
 * (shared/domain/task-order.ts, zod-free for the page's first screen) so the host pages in exactly
 * the order the renderer draws.
 */

/** The Finished filter: every settled task, or one kind of outcome. */
export const FINISHED_FILTERS = ['all', 'succeeded', 'failed', 'stopped', 'timed_out'] as const;
export const FinishedFilterSchema = z.enum(FINISHED_FILTERS);
export type FinishedFilter = z.infer<typeof FinishedFilterSchema>;

export const FinishedCountsSchema = z.object({
  all: z.number().int().nonnegative(),
  succeeded: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  stopped: z.number().int().nonnegative(),
  timed_out: z.number().int().nonnegative(),
  /** Of `all`, those that ran in the background (started there, or a foreground run handed over). */
  background: z.number().int().nonnegative(),
});
export type FinishedCounts = z.infer<typeof FinishedCountsSchema>;

export { FINISHED_PAGE_DEFAULT, FINISHED_PAGE_MAX };
export const FinishedLimitSchema = z.number().int().min(1).max(FINISHED_PAGE_MAX);

/**
 * Where the next page starts: the last row's place in the order (when it began, then its number).
 * A keyset, not an offset: a task that settles or starts meanwhile never shifts what a page holds,
 * so no row is skipped or sent twice.
 */
export const FinishedCursorSchema = z.object({ at: z.number().int(), n: z.number().int().nonnegative() }).strict();
export type FinishedCursor = z.infer<typeof FinishedCursorSchema>;

export const FinishedPageSchema = z.object({
  tasks: z.array(TaskRowSchema),
  /** Where the next page starts; null when this page reached the end. */
  next: FinishedCursorSchema.nullable(),
});
export type FinishedPage = z.infer<typeof FinishedPageSchema>;

// The panel's order and outcome kinds, zod-free for the page's first screen.
export * from '../domain/task-order.js';

/**
 * The tasks panel's pages, cut from a session's rows: what a session opens with, and the finished
 * rows after a cursor. These state the rule over every row; the host answers with SettledOrder
 * (electron/pool/settled-order.ts), which keeps the settled rows sorted between calls and is
 * checked against these (test/pool/settled-order.test.ts).
 */

export interface OpenTasks {
  live: TaskRow[];
  counts: FinishedCounts;
  finished: FinishedPage;
  newest: number;
}

/** Live tasks and leftovers whole, the counts, and the first page of finished rows under `filter`. */
export function openTasks(rows: readonly TaskRow[], filter: FinishedFilter, limit: number): OpenTasks {
  const counts = emptyCounts();
  const live: TaskRow[] = [];
  let newest = 0;
  for (const row of rows) {
    newest = Math.max(newest, taskNumber(row.id));
    if (!isFinishedTask(row)) {
      live.push(row);
      continue;
    }
    countFinished(counts, row, 1);
  }
  return { live, counts, finished: finishedPage(rows, filter, null, limit), newest };
}

/** The `limit` finished rows under `filter` that come after `after` in the panel's order (from the top when null). */
export function finishedPage(
  rows: readonly TaskRow[],
  filter: FinishedFilter,
  after: FinishedCursor | null,
  limit: number,
): FinishedPage {
  const keyed: { row: TaskRow; key: FinishedCursor }[] = [];
  for (const row of rows) {
    if (!isFinishedTask(row) || !matchesFilter(row, filter)) continue;
    const key = finishedCursor(row);
    if (after === null || compareCursors(after, key) < 0) keyed.push({ row, key });
  }
  // Only the page is needed: a partial selection would do, but sorting 10,000 keys takes about 2 ms.
  keyed.sort((a, b) => compareCursors(a.key, b.key));
  const page = keyed.slice(0, limit);
  return {
    tasks: page.map((entry) => entry.row),
    next: keyed.length > limit ? page[page.length - 1]!.key : null,
  };
}

/** The ids of every finished task under `filter`, in the panel's order. */
export function finishedIds(rows: readonly TaskRow[], filter: FinishedFilter): string[] {
  return finishedRows(rows, filter)
    .map((row) => ({ id: row.id, key: finishedCursor(row) }))
    .sort((a, b) => compareCursors(a.key, b.key))
    .map((entry) => entry.id);
}

/** Of the finished tasks under `filter`, how many ran in the background (what a Clear of them takes from that count). */
export function finishedBackground(rows: readonly TaskRow[], filter: FinishedFilter): number {
  return finishedRows(rows, filter).filter(isBackgroundTask).length;
}

function finishedRows(rows: readonly TaskRow[], filter: FinishedFilter): TaskRow[] {
  return rows.filter((row) => isFinishedTask(row) && matchesFilter(row, filter));
}

/** The session's tasks started for an item of the work list `listId` (the Work tab shows them on their items). */
export function workListTasks(rows: readonly TaskRow[], listId: string): TaskRow[] {
  return rows.filter((row) => row.workItem?.listId === listId);
}
