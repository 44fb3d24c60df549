import type { TaskRow } from '@shared/contract.js';

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
