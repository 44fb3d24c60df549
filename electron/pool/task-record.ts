import { join } from 'node:path';
import {
  CHECK_AFTER_DEFAULT_SECONDS,
  type MonitorNotify,
  type ReadyCheck,
  type TaskKind,
  type TaskStatus,
} from '../../shared/schemas/task.js';
import type { StartRequest } from './pool-types.js';
import type { Containment, WindowsMember } from '../process/identity.js';
import type { AgentRowInfo } from '../../shared/schemas/subagent.js';
import type { SandboxRefusal } from '../../shared/schemas/sandbox.js';

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
  /** Private: `VARIABLE=value` carried by every process of the task; null on records written before instance ids. */
  mark: string | null;
  /** How its processes were held together; null until it started. */
  containment: Containment | null;
  /** Why it was held less tightly than the machine allows, in words. */
  containmentNote: string | null;
  /** Private: its cgroup (Linux), the identity of what is left of it after a crash. */
  cgroup: string | null;
  /** Private (Windows): processes seen in its job, to be proven after the leader exited. */
  members: WindowsMember[];
  /** The app run that owns the task; a record of another run that still claims to run is orphaned. */
  runId: string;
  queuedAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** The last time a running Drover saw it alive (the heartbeat); where a lost task's time ends. */
  seenAt: number | null;
  /** Why its log stopped growing (a full disk) and what it missed; null while the log holds everything. */
  logNote: string | null;
  expectedSeconds: number | null;
  timeoutSeconds: number;
  notify: boolean;
  adopted: boolean;
  foreground: boolean;
  /** Commands: a pseudo-terminal (true) or pipes (false); see TaskRow.tty. */
  tty: boolean;
  /** Commands: run inside the session's sandbox; see TaskRow.sandboxed. */
  sandboxed: boolean;
  /** What the sandbox refused the task (the first SANDBOX_REFUSALS_MAX). */
  sandboxRefusals: SandboxRefusal[];
  logPath: string;
  /** Monitors: how the agent is woken; null for other tasks. */
  notifyMode: MonitorNotify | null;
  /** Monitors: seconds after the start when the check is due. */
  checkAfterSeconds: number | null;
  /** Monitors: when the scheduled ping was sent. */
  pingedAt: number | null;
  /** Where the next delta read of the log starts (bytes). */
  eventOffset: number;
  readyCheck: ReadyCheck | null;
  readyAt: number | null;
  notifyReady: boolean;
  /** The work item it serves (list and id), or null. */
  workItem: { listId: string; itemId: number } | null;
  /** The agent task whose run started it (stopping the agent stops it); null for the session's own. */
  ownerTaskId: string | null;
  /** Agent tasks: the definition, and what the run used of its limits; null for other tasks. */
  agentInfo: AgentRowInfo | null;
  /** Agent tasks, this run only (never stored): what the runner needs to start it. */
  payload?: unknown;
}

export const TASK_ID_PREFIX: Record<TaskKind, string> = { command: 'bg', monitor: 'mon', agent: 'agt' };

export function taskId(kind: TaskKind, seq: number): string {
  return `${TASK_ID_PREFIX[kind]}_${seq}`;
}

/** What a new task starts from, before it has run. */
export interface NewTask {
  seq: number;
  sessionId: string;
  kind: TaskKind;
  command: string;
  cwd: string;
  runId: string;
  queuedAt: number;
  expectedSeconds: number | null;
  timeoutSeconds: number;
  notify: boolean;
  foreground: boolean;
  tty: boolean;
  sandboxed: boolean;
  logPath: string;
  notifyMode: MonitorNotify | null;
  checkAfterSeconds: number | null;
  readyCheck: ReadyCheck | null;
  notifyReady: boolean;
  workItem: { listId: string; itemId: number } | null;
  ownerTaskId: string | null;
  agentInfo: AgentRowInfo | null;
  payload?: unknown;
}

export function newTaskRecord(task: NewTask): TaskRecord {
  return {
    ...task,
    id: taskId(task.kind, task.seq),
    sandboxRefusals: [],
    status: 'queued',
    exitCode: null,
    signal: null,
    exitNote: null,
    error: null,
    pid: null,
    pgid: null,
    processStart: null,
    bootId: null,
    mark: null,
    containment: null,
    containmentNote: null,
    cgroup: null,
    members: [],
    startedAt: null,
    endedAt: null,
    seenAt: null,
    logNote: null,
    adopted: false,
    pingedAt: null,
    eventOffset: 0,
    readyAt: null,
  };
}

/** A new task's record from the request that starts it: where its log goes, and what it may notify. */
export function recordForRequest(
  seq: number,
  request: Omit<StartRequest, 'kind'> & { kind: TaskKind },
  foreground: boolean,
  place: { runId: string; dataDir: string; queuedAt: number; timeoutSeconds: number },
): TaskRecord {
  const monitor = request.kind === 'monitor';
  // What a sub-agent starts is its own business: it never wakes the session's model.
  const owned = request.owner !== undefined;
  const notifyMode = monitor ? (owned ? 'none' : (request.notifyMode ?? 'scheduled')) : null;
  return newTaskRecord({
    seq,
    sessionId: request.sessionId,
    kind: request.kind,
    command: request.command,
    cwd: request.cwd,
    runId: place.runId,
    queuedAt: place.queuedAt,
    expectedSeconds: request.expectedSeconds ?? null,
    timeoutSeconds: place.timeoutSeconds,
    // A foreground run is watched by its caller; only background work may ask to wake the agent.
    // A monitor wakes at its exit unless told never to.
    notify: !foreground && !owned && (monitor ? notifyMode !== 'none' : (request.notifyOnFinish ?? false)),
    foreground,
    // A terminal unless the starter asked for pipes (the model's tools do); an agent has neither.
    tty: request.kind === 'agent' ? false : (request.tty ?? true),
    // The pool is told; it does not decide (the permission gate does, with the session's sandbox).
    sandboxed: request.kind === 'agent' ? false : request.sandboxed === true,
    logPath: join(place.dataDir, 'sessions', request.sessionId, 'background', taskId(request.kind, seq), 'output.log'),
    notifyMode,
    checkAfterSeconds: monitor ? (request.checkAfterSeconds ?? CHECK_AFTER_DEFAULT_SECONDS) : null,
    readyCheck: request.ready ?? null,
    notifyReady: !foreground && !owned && request.ready !== undefined && (request.notifyOnReady ?? false),
    workItem: request.workItem ?? null,
    ownerTaskId: request.owner ?? null,
    agentInfo: request.agentInfo ?? null,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
}
