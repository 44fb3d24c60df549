import type { TaskRow, TaskStatus } from '@shared/contract.js';
import { isActiveTask, taskNumber } from '@shared/domain/task-order.js';

/** How far a task is in its life: a row never goes back (a stale answer racing an event must not win). */
export const STATUS_RANK: Record<TaskStatus, number> = {
  queued: 0,
  running: 1,
  succeeded: 2,
  failed: 2,
  timed_out: 2,
  stopped: 2,
  orphaned: 2,
  lost: 2,
};

/**
 * The rows oldest first by when they were queued, then by number. Each row's key is worked out
 * once (not per comparison): this runs on every task event.
 */
export function inQueueOrder(rows: Iterable<TaskRow>): TaskRow[] {
  const keyed = [...rows].map((row) => ({ row, at: Date.parse(row.queuedAt), n: taskNumber(row.id) }));
  keyed.sort((a, b) => a.at - b.at || a.n - b.n);
  return keyed.map((entry) => entry.row);
}

/** Settled, yet its processes are provably still running from an earlier run of Drover. */
export function isLeftover(task: TaskRow): boolean {
  return task.leftover && !isActiveTask(task);
}
