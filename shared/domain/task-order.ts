import { FINISHED_PAGE_DEFAULT } from './page-sizes.js';
import type { FinishedCounts, FinishedCursor, FinishedFilter } from '../schemas/task-page.js';
import type { TaskRow } from '../schemas/task.js';

/*
 * The tasks panel's order and outcome kinds, without the schemas (zod-free): the host pages in
 * exactly the order the renderer draws, and the renderer's first screen does not pay for building
 * the schemas (issue 18: opening a big session). schemas/task-page.ts re-exports them.
 */

/** Ids one findTasks asks for at most. */
export const FIND_TASKS_MAX = FINISHED_PAGE_DEFAULT * 5;

/** Queued or running: what the Running section shows. */
export function isActiveTask(task: Pick<TaskRow, 'status'>): boolean {
  return task.status === 'running' || task.status === 'queued';
}

/** In the Finished list: settled, and not a leftover of an earlier run (those show on their own). */
export function isFinishedTask(task: Pick<TaskRow, 'status' | 'leftover'>): boolean {
  return !isActiveTask(task) && !task.leftover;
}

/** Which filter a settled task falls under: a lost or orphaned task failed as far as the person is concerned. */
export function finishedKind(task: Pick<TaskRow, 'status'>): Exclude<FinishedFilter, 'all'> {
  if (task.status === 'succeeded' || task.status === 'stopped' || task.status === 'timed_out') return task.status;
  return 'failed';
}

export function matchesFilter(task: Pick<TaskRow, 'status'>, filter: FinishedFilter): boolean {
  return filter === 'all' || finishedKind(task) === filter;
}

/** Runs (or ran) in the background: started there, or a foreground run handed over. A plain `!cmd` is not one. */
export function isBackgroundTask(task: Pick<TaskRow, 'foreground' | 'adopted'>): boolean {
  return !task.foreground || task.adopted;
}

/** Adds (+1) or takes away (-1) one finished row from the counts. */
export function countFinished(counts: FinishedCounts, task: TaskRow, sign: 1 | -1): void {
  counts.all += sign;
  counts[finishedKind(task)] += sign;
  if (isBackgroundTask(task)) counts.background += sign;
}

/** The number in a task id (`bg_12` → 12). */
export function taskNumber(id: string): number {
  return Number(id.slice(id.indexOf('_') + 1));
}

/** A row's place in the Finished order. */
export function finishedCursor(task: Pick<TaskRow, 'id' | 'startedAt' | 'queuedAt'>): FinishedCursor {
  return { at: Date.parse(task.startedAt ?? task.queuedAt), n: taskNumber(task.id) };
}

/** Newest first by when a task began, then by number: the one order of both sections (nothing floats). */
export function compareCursors(a: FinishedCursor, b: FinishedCursor): number {
  return b.at - a.at || b.n - a.n;
}

export function emptyCounts(): FinishedCounts {
  return { all: 0, succeeded: 0, failed: 0, stopped: 0, timed_out: 0, background: 0 };
}
