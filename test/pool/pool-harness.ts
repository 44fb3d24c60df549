import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { TaskRow } from '../../shared/schemas/task.js';
import { openDatabase } from '../../electron/store/database.js';
import { TasksRepo } from '../../electron/store/tasks-repo.js';
import { CommandRunner } from '../../electron/pool/command-runner.js';
import { TaskPool } from '../../electron/pool/pool.js';
import { unixInspector } from '../../electron/process/inspector.js';
import { unixContainers, type ContainerFactory } from '../../electron/process/containers.js';
import { currentUnixOs } from '../../electron/process/unix-os.js';
import { randomId } from '../../electron/core/ids.js';
import type { PoolPolicy } from '../../electron/pool/policy.js';
import type { Runner } from '../../electron/pool/runner.js';
import { tempDir } from '../helpers.js';

export interface Harness {
  pool: TaskPool;
  db: Database;
  dataDir: string;
  sessionId: string;
  rows: TaskRow[];
  instanceId: string;
  containers: ContainerFactory;
  open(runId: string, policy?: Partial<PoolPolicy>, heartbeatMs?: number): TaskPool;
}

export interface HarnessOptions {
  /** 'group' holds tasks in process groups even where cgroups could be made. */
  containment?: 'auto' | 'group';
  /** Lines the runner logs. */
  log?: (message: string) => void;
  /** Wraps the real runner (to slow its start, say). */
  wrapRunner?: (runner: Runner) => Runner;
  /** Sees every row change as it happens (the services' bus subscribers, in a test). */
  onRow?: (row: TaskRow) => void;
  /** Sees every output event (a task printed: its output's total bytes so far). */
  onOutput?: (taskId: string, totalBytes: number) => void;
  /** The tasks' shell (default: $SHELL, as in the app). */
  shell?: string;
  /** The environment tasks start from (default: this process's). */
  baseEnv?: NodeJS.ProcessEnv;
  /** The nice value tasks start at (default: Drover's own, as a runner without the setting). */
  taskNice?: () => number;
  /** Whether busy tasks share one program's CPU weight (default: off, each weighs as a program). */
  shareTaskCpu?: () => boolean;
}

/** A real pool on a real database and real processes; only the folder is temporary. */
export function makePool(policy: Partial<PoolPolicy> = {}, dataDir = tempDir(), options: HarnessOptions = {}): Harness {
  const db = openDatabase(join(dataDir, 'drover.sqlite'));
  const sessionId = 'sess1';
  db.prepare("INSERT OR IGNORE INTO sessions (id, title, created_at, updated_at) VALUES (?, 't', 0, 0)").run(sessionId);
  const rows: TaskRow[] = [];
  const instanceId = randomId(12);
  const os = currentUnixOs();
  const inspector = unixInspector(os, instanceId);
  const containers = unixContainers({ instanceId, os, mode: options.containment ?? 'auto' });
  const commandRunner = new CommandRunner({
    containers,
    identify: (pid) => inspector.identify(pid).processStart,
    processState: (pid) => os.processState(pid),
    ...(options.log ? { log: options.log } : {}),
    ...(options.shell ? { shell: options.shell } : {}),
    ...(options.baseEnv ? { baseEnv: options.baseEnv } : {}),
    ...(options.taskNice ? { taskNice: options.taskNice } : {}),
    ...(options.shareTaskCpu ? { shareTaskCpu: options.shareTaskCpu } : {}),
  });
  const runner = options.wrapRunner ? options.wrapRunner(commandRunner) : commandRunner;
  const open = (runId: string, extra: Partial<PoolPolicy> = {}, heartbeatMs?: number) =>
    new TaskPool({
      ...(heartbeatMs ? { heartbeatMs } : {}),
      repo: new TasksRepo(db),
      runners: { command: runner, monitor: runner },
      inspector,
      dataDir,
      runId,
      instanceId,
      listener: {
        taskChanged: (row) => {
          rows.push(row);
          options.onRow?.(row);
        },
        taskOutput: (_sessionId, taskId, totalBytes) => options.onOutput?.(taskId, totalBytes),
      },
      policy: { stopGraceMs: 1_000, ...policy, ...extra },
    });
  return { pool: open('run-1'), db, dataDir, sessionId, rows, instanceId, containers, open };
}

/** Whether a process still runs: it exists and is not a zombie waiting to be reaped. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/** The log as written so far; empty until the file exists. */
export function logText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Whether anything of a process group still runs (zombies, already dead and waiting to be reaped, do not count). */
export function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  return currentUnixOs().groupMembers(pgid).some(pidAlive);
}
