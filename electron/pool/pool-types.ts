import type { MonitorNotify, ReadyCheck, TaskKind, TaskRow } from '../../shared/schemas/task.js';
import type { AgentRowInfo } from '../../shared/schemas/subagent.js';
import type { TasksRepo } from '../store/tasks-repo.js';
import type { ProcessInspector } from '../process/inspector.js';
import type { PoolPolicy } from './policy.js';
import type { Runner } from './runner.js';
import type { TaskRecord } from './task-record.js';
import type { PortSource } from './task-signals.js';

export interface StartRequest {
  sessionId: string;
  command: string;
  cwd: string;
  kind?: TaskKind | undefined;
  /** Commands: a pseudo-terminal (default: what a person's own start gets) or, with false, pipes. */
  tty?: boolean | undefined;
  /** Commands: run inside the session's sandbox (the caller checked it is on and available). */
  sandboxed?: boolean | undefined;
  env?: Readonly<Record<string, string>>;
  expectedSeconds?: number | undefined;
  timeoutSeconds?: number | undefined;
  notifyOnFinish?: boolean | undefined;
  /** Monitors: how the agent is woken (default scheduled). */
  notifyMode?: MonitorNotify | undefined;
  /** Monitors: when the check is due, in seconds after the start (default 45). */
  checkAfterSeconds?: number | undefined;
  /** When the task counts as ready. */
  ready?: ReadyCheck | undefined;
  /** Wake the agent once when it is ready (or dies before it is). */
  notifyOnReady?: boolean | undefined;
  /** The work item it is started for (checked to exist by the caller). */
  workItem?: { listId: string; itemId: number } | undefined;
  /** The agent task whose run starts it: stopping that agent stops it. */
  owner?: string | undefined;
  /** Agent tasks: the definition and its limits, shown in the row. */
  agentInfo?: AgentRowInfo | undefined;
  /** Agent tasks: what the runner needs to start it (opaque to the pool; kept in memory only). */
  payload?: unknown;
}

export interface PoolListener {
  taskChanged(row: TaskRow): void;
  taskOutput(sessionId: string, taskId: string, totalBytes: number): void;
}

/** The part of the disk watch the pool uses. */
export interface DiskReporter {
  /** True when the failure was for lack of room (the disk now counts as full). */
  noteFailure(error: unknown): boolean;
  onResume(listener: () => void): () => void;
  readonly full: boolean;
}

export interface PoolOptions {
  repo: TasksRepo;
  runners: Readonly<Partial<Record<TaskKind, Runner>>>;
  dataDir: string;
  runId: string;
  /** This data folder's random id: every task's mark and cgroup carry it. */
  instanceId: string;
  listener: PoolListener;
  policy?: Partial<PoolPolicy>;
  now?: () => number;
  /** Where writes report a full disk, and who says when there is room again (absent: failures are only logged). */
  disk?: DiskReporter;
  /** Between heartbeats (HEARTBEAT_MS unless a test needs it sooner). */
  heartbeatMs?: number;
  /** Identity at launch, and leftovers of earlier runs. */
  inspector: ProcessInspector;
  /** Where problems that reach no caller go (a record that could not be saved). */
  log?: (message: string) => void;
  /** Which running task listens on which TCP port; absent where the OS does not tell. */
  ports?: PortSource | null;
}

export interface ReapReport {
  reaped: { taskId: string; pids: number[] }[];
  untouched: { taskId: string; reason: string }[];
}

export type EndReason = 'stopped' | 'timed_out' | 'shutdown' | 'cancelled' | 'refused';

export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Counted against the cap: started in the background, or handed to it. */
export function inBackground(record: TaskRecord): boolean {
  return !record.foreground || record.adopted;
}

export function endReasonText(reason: EndReason, detail: string | null): string {
  if (detail) return `stopped: ${detail}`;
  if (reason === 'cancelled') return 'stopped: the turn was cancelled';
  if (reason === 'shutdown') return 'stopped: Drover was shutting down';
  return 'stopped by request';
}
