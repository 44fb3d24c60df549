import type { TaskKind, TaskStatus } from '../../shared/schemas/task.js';

/** Statuses a record may hold on disk; `orphaned` is only ever derived. */
export type StoredStatus = Exclude<TaskStatus, 'orphaned'>;

/** Everything the pool knows of a task, including private process identity. */
export interface TaskRecord {
  id: string;
  seq: number;
  sessionId: string;
  kind: TaskKind;
  command: string;
  cwd: string;
  status: StoredStatus;
  exitCode: number | null;
  signal: string | null;
  exitNote: string | null;
  error: string | null;
  pid: number | null;
  pgid: number | null;
  /** Private: the leader's OS start time, to tell a reused pid from ours. */
  processStart: string | null;
  /** Private: the boot the process ran in. */
  bootId: string | null;
  /** The app run that owns the task; a record of another run that still claims to run is orphaned. */
  runId: string;
  queuedAt: number;
  startedAt: number | null;
  endedAt: number | null;
  expectedSeconds: number | null;
  timeoutSeconds: number;
  notify: boolean;
  adopted: boolean;
  foreground: boolean;
  logPath: string;
}

export const TASK_ID_PREFIX: Record<TaskKind, string> = { command: 'bg', monitor: 'mon', agent: 'agent' };

export function taskId(kind: TaskKind, seq: number): string {
  return `${TASK_ID_PREFIX[kind]}_${seq}`;
}
