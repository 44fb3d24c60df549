import type { DroverContract } from '../../shared/contract.js';
import type { Handlers } from '../ipc/router.js';
import type { TaskPool } from '../pool/pool.js';
import { finishedBackground, finishedIds, workListTasks } from '../../shared/schemas/task-page.js';

type OpenHandlers = Pick<
  Handlers<DroverContract>,
  'openTasks' | 'pageFinishedTasks' | 'findTasks' | 'finishedTaskIds' | 'workListTasks'
>;

export interface OpenHandlerDeps {
  pool: Pick<TaskPool, 'list' | 'has' | 'row' | 'openTasks' | 'finishedPage'>;
  /** Throws not_found for a session that does not exist. */
  requireSession: (id: string) => void;
}

/**
 * Opening a session's tasks in pages (issue 18): the panel gets its first screen, then finished
 * rows as they scroll into view, any row by id when a link names one no page has loaded, and the
 * rows the Work tab shows on its items (finished ones need not be on any page loaded).
 */
export function openHandlers(d: OpenHandlerDeps): OpenHandlers {
  return {
    openTasks: ({ sessionId, filter, limit }) => {
      d.requireSession(sessionId);
      return d.pool.openTasks(sessionId, filter, limit);
    },
    pageFinishedTasks: ({ sessionId, filter, after, limit }) => {
      d.requireSession(sessionId);
      return d.pool.finishedPage(sessionId, filter, after ?? null, limit);
    },
    findTasks: ({ sessionId, taskIds }) => {
      d.requireSession(sessionId);
      const unique = [...new Set(taskIds)];
      return {
        tasks: unique.filter((id) => d.pool.has(sessionId, id)).map((id) => d.pool.row(sessionId, id)),
        missing: unique.filter((id) => !d.pool.has(sessionId, id)),
      };
    },
    finishedTaskIds: ({ sessionId, filter }) => {
      d.requireSession(sessionId);
      const rows = d.pool.list(sessionId);
      return { ids: finishedIds(rows, filter), background: finishedBackground(rows, filter) };
    },
    workListTasks: ({ sessionId, listId }) => {
      d.requireSession(sessionId);
      return { tasks: workListTasks(d.pool.list(sessionId), listId) };
    },
  };
}
