import type { AgentStatus } from '../schemas/subagent.js';
import type { TaskStatus } from '../schemas/task.js';

/*
 * Facts about a task's status, without the schemas (zod-free): the renderer's first screen uses
 * them, and building the schemas costs it tens of milliseconds (issue 18: opening a big session).
 * The schema modules re-export them.
 */

/** Every status a task can have (schemas/task.ts makes its schema of them). */
export const TASK_STATUSES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'timed_out',
  'stopped',
  'orphaned',
  'lost',
] as const;

/** Quiet this long while running, and a task is "silent". */
export const SILENT_AFTER_SECONDS = 60;

/**
 * Statuses a task never leaves. `orphaned` is derived on read, never stored: a record of an earlier
 * run that still claims to run. `lost` is stored: an orphan whose processes were proven gone.
 */
export const SETTLED_STATUSES: readonly TaskStatus[] = TASK_STATUSES.filter(
  (status) => status !== 'queued' && status !== 'running',
);
export function isSettled(status: TaskStatus): boolean {
  return SETTLED_STATUSES.includes(status);
}

/** How a task row's status reads for an agent task. */
export function agentStatusOf(status: TaskStatus): AgentStatus {
  switch (status) {
    case 'queued':
      return 'queued';
    case 'running':
      return 'running';
    case 'succeeded':
      return 'completed';
    case 'stopped':
    case 'timed_out':
      return 'killed';
    default:
      return 'failed';
  }
}
