import type { TaskRow } from '@shared/contract.js';
import {
  finishedBackground,
  finishedIds,
  finishedPage,
  openTasks,
  workListTasks,
  type FinishedCursor,
  type FinishedFilter,
} from '@shared/schemas/task-page.js';
import { FINISHED_PAGE_DEFAULT } from '@shared/domain/page-sizes.js';

/** A task row for tests, running since `startedAt` unless told otherwise. */
export function taskRow(id: string, patch: Partial<TaskRow> = {}): TaskRow {
  return {
    id,
    sessionId: 's1',
    kind: 'command',
    status: 'running',
    command: `echo ${id}`,
    cwd: '/tmp',
    exitCode: null,
    signal: null,
    exitNote: null,
    error: null,
    pid: 100,
    queuedAt: '2025-01-01T12:00:00.000Z',
    startedAt: '2025-01-01T12:00:00.000Z',
    endedAt: null,
    elapsedSeconds: 0,
    expectedSeconds: null,
    timeoutSeconds: 600,
    overdue: false,
    running: true,
    silentForSeconds: null,
    notifyOnFinish: false,
    adopted: false,
    foreground: false,
    tty: true,
    sandboxed: false,
    sandboxRefusals: [],
    leftover: false,
    containment: 'cgroup',
    containmentNote: null,
    leaderExited: false,
    notifyMode: null,
    checkAfterSeconds: null,
    pingDueAt: null,
    pingedAt: null,
    eventOffset: 0,
    ports: [],
    ready: null,
    readyAt: null,
    readyCheck: null,
    notifyOnReady: false,
    workItem: null,
    ownerTaskId: null,
    agent: null,
    lastOutputAt: null,
    logPath: `/tmp/${id}.log`,
    logNote: null,
    ...patch,
  };
}

export function settledRow(id: string, endedAt: string, patch: Partial<TaskRow> = {}): TaskRow {
  return taskRow(id, { status: 'succeeded', exitCode: 0, endedAt, running: false, elapsedSeconds: 4, ...patch });
}

/**
 * The paged task requests (openTasks, pageFinishedTasks, findTasks, finishedTaskIds, workListTasks) of a fake
 * API, answered from `rows()` by the host's own paging rules.
 */
export function taskPages(rows: () => readonly TaskRow[]) {
  return {
    openTasks: async ({ filter = 'all', limit = FINISHED_PAGE_DEFAULT }: { filter?: FinishedFilter; limit?: number }) =>
      openTasks(rows(), filter, limit),
    pageFinishedTasks: async ({
      filter = 'all',
      after,
      limit = FINISHED_PAGE_DEFAULT,
    }: {
      filter?: FinishedFilter;
      after?: FinishedCursor;
      limit?: number;
    }) => finishedPage(rows(), filter, after ?? null, limit),
    findTasks: async ({ taskIds }: { taskIds: string[] }) => ({
      tasks: rows().filter((row) => taskIds.includes(row.id)),
      missing: taskIds.filter((id) => !rows().some((row) => row.id === id)),
    }),
    finishedTaskIds: async ({ filter = 'all' }: { filter?: FinishedFilter }) => ({
      ids: finishedIds(rows(), filter),
      background: finishedBackground(rows(), filter),
    }),
    workListTasks: async ({ listId }: { listId: string }) => ({ tasks: workListTasks(rows(), listId) }),
  };
}

/** The contract's events of a fake API: `on` as the API has it, and `emit` to send one. */
export function testEvents() {
  const listeners = new Map<string, ((payload: unknown) => void)[]>();
  return {
    on: (name: string, listener: (payload: unknown) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
      return () =>
        listeners.set(
          name,
          (listeners.get(name) ?? []).filter((kept) => kept !== listener),
        );
    },
    emit: (name: string, payload: unknown) => {
      for (const listener of listeners.get(name) ?? []) listener(payload);
    },
    /** How many listeners follow `name` now. */
    count: (name: string) => (listeners.get(name) ?? []).length,
  };
}
