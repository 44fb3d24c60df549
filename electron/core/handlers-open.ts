import type { DroverContract } from '../../shared/contract.js';
import type { Handlers } from '../ipc/router.js';
import type { TaskPool } from '../pool/pool.js';
import { finishedIds, finishedPage, openTasks } from '../../shared/schemas/task-page.js';

type OpenHandlers = Pick<Handlers<DroverContract>, 'openTasks' | 'pageFinishedTasks' | 'findTasks' | 'finishedTaskIds'>;

export interface OpenHandlerDeps {
  pool: Pick<TaskPool, 'list' | 'has' | 'row'>;
  /** Throws not_found for a session that does not exist. */
  requireSession: (id: string) => unknown;
}

/**
 * Opening a session's tasks in pages (issue 18): the panel gets its first screen, then finished
 * rows as they scroll into view, and any row by id when a link names one no page has loaded.
 */
export function openHandlers(d: OpenHandlerDeps): OpenHandlers {
  return {
    openTasks: ({ sessionId, filter, limit }) => {
      d.requireSession(sessionId);
      return openTasks(d.pool.list(sessionId), filter, limit);
    },
    pageFinishedTasks: ({ sessionId, filter, after, limit }) => {
      d.requireSession(sessionId);
      return finishedPage(d.pool.list(sessionId), filter, after ?? null, limit);
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
      return { ids: finishedIds(d.pool.list(sessionId), filter) };
    },
  };
}
