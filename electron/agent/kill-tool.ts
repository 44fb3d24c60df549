import type { z } from 'zod';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { ToolDisplay } from '../../shared/schemas/message.js';
import { KILL_TARGETS, KillShellInput, killTarget } from '../../shared/schemas/kill.js';
import type { TaskPool } from '../pool/pool.js';
import { formatDuration } from '../pool/adoption.js';
import { cgroupOf } from '../process/cgroup.js';
import { markFor } from '../process/identity.js';
import { findPortOwner, type PortOwner } from '../process/port-owner.js';
import { checkSignalable, PidSignalError, processGroupOf, signalPid } from '../process/signal-pid.js';
import type { UnixOs } from '../process/unix-os.js';
import { LIST_TOOL, ToolCallError, type AgentTool, type ToolContext, type ToolOutcome } from './tools.js';
import { notRun } from './run-command.js';

export interface KillToolDeps {
  pool: TaskPool;
  /** This data folder's instance id: a process carrying its mark, or in its cgroup, is one of its tasks'. */
  instanceId: string;
  /** Reads a process's mark (unix); absent on Windows, where a pid is matched by the task's own pid only. */
  os?: Pick<UnixOs, 'markOf'> | null;
}

/** Which task a process belongs to, and how that is known. */
interface Owned {
  taskId: string;
  how: string;
}

type Display = Extract<ToolDisplay, { kind: 'killed' }>;

const DISPLAY_BASE = { taskId: null, pid: null, port: null, command: null, signal: null, alreadySettled: false };

function taskWords(row: TaskRow): string {
  const parts = [`${row.id}: ${row.status}`];
  if (row.exitCode !== null) parts.push(`exit code ${row.exitCode}`);
  if (row.signal) parts.push(`signal ${row.signal}`);
  parts.push(`elapsed ${formatDuration(row.elapsedSeconds)}`);
  return parts.join(', ');
}

/**
 * kill_shell: stops a tracked task as a whole (by its id, or by a pid or port of one of its
 * processes) through the pool, or one process Drover did not start, alone and after checks.
 */
export function createKillTool(deps: KillToolDeps): AgentTool {
  const { pool } = deps;
  const markVariable = markFor(deps.instanceId, '').variable;

  /** The task of this instance a process belongs to: its leader, its group, its cgroup or its mark. */
  const ownerTask = (sessionId: string, pid: number): Owned | null => {
    const rows = pool.list(sessionId).filter((row) => row.pid !== null && (row.running || row.leftover));
    const leader = rows.find((row) => row.pid === pid);
    if (leader) return { taskId: leader.id, how: 'its shell' };
    const group = processGroupOf(pid);
    const grouped = group !== null && rows.find((row) => row.pid === group);
    if (grouped) return { taskId: grouped.id, how: `in its process group ${group}` };
    const cgroup = process.platform === 'linux' ? cgroupOf(pid) : null;
    const inCgroup = cgroup && new RegExp(`/drover-${deps.instanceId}/([a-z]+_[0-9]+)$`).exec(cgroup);
    const mark = deps.os?.markOf(pid, markVariable);
    const found = inCgroup
      ? { taskId: inCgroup[1]!, how: 'in its cgroup' }
      : mark && mark !== 'unreadable'
        ? { taskId: mark, how: 'carrying its mark' }
        : null;
    // A process left behind by a task of this session that has settled: nothing of the task to stop, so it is ended alone.
    if (found && pool.has(sessionId, found.taskId) && !rows.some((row) => row.id === found.taskId)) return null;
    return found;
  };

  const stopTask = async (
    sessionId: string,
    taskId: string,
    via: Partial<Display> = {},
    how?: string,
  ): Promise<ToolOutcome> => {
    if (!pool.has(sessionId, taskId)) {
      if (via.pid === undefined)
        throw new ToolCallError(
          'not_found',
          `No task "${taskId}" in this session. Call ${LIST_TOOL} to see the task ids.`,
          `There is no task ${taskId} in this session.`,
        );
      // A process of this Drover's task of another session: never signalled from here.
      const what = via.port != null ? `port ${via.port}` : `pid ${via.pid}`;
      throw new ToolCallError(
        'conflict',
        `${what} belongs to Drover task ${taskId} of another session; it was not stopped.`,
        `Not stopped: ${what} belongs to task ${taskId} of another session.`,
      );
    }
    const { wasSettled } = await pool.stop(sessionId, taskId);
    const row = pool.row(sessionId, taskId);
    const display: Display = { ...DISPLAY_BASE, ...via, kind: 'killed', taskId, alreadySettled: wasSettled };
    const detail = how ? ` (pid ${via.pid}, ${how})` : '';
    const lead =
      via.port != null
        ? `Port ${via.port} is held by task ${taskId}${detail}`
        : via.pid != null
          ? `Pid ${via.pid} belongs to task ${taskId}${how ? ` (${how})` : ''}`
          : `Task ${taskId}`;
    const text = wasSettled
      ? `${lead}, which had already settled (${taskWords(row)}). Nothing was stopped.`
      : `${lead}: stopped the whole task, every process in it. ${taskWords(row)}.`;
    return { taskId, display, text };
  };

  /**
   * One process Drover did not start: signalled alone, never its group. It is not Drover's to end,
   * so the permission gate judges it like the `kill` command it is (process control asks the person).
   */
  const stopProcess = async (
    context: ToolContext,
    pid: number,
    port: number | null,
    command: string | null,
  ): Promise<ToolOutcome> => {
    const who = `pid ${pid}${command ? ` (${command})` : ''}${port !== null ? `, listening on port ${port},` : ''}`;
    try {
      // Refused, gone or not ours to signal: said at once, without asking the person about it.
      const pinned = checkSignalable(pid);
      const permission = await context.permit(`kill ${pid}`, context.cwd, false);
      if (!permission.allowed) return notRun(permission, `kill ${pid}`);
      // Only the process the person was asked about: one that took its pid meanwhile is left alone.
      const ended = await signalPid(pid, pool.policy.stopGraceMs, pinned);
      const display: Display = { ...DISPLAY_BASE, kind: 'killed', pid, port, command, signal: ended.signal };
      const forced =
        ended.signal === 'SIGKILL' ? ` It ignored SIGTERM for ${pool.policy.stopGraceMs / 1000} s and was killed.` : '';
      return {
        display,
        text: `Ended ${who} which is not a Drover task: it was signalled alone (its group was left alone) and is gone.${forced}`,
      };
    } catch (error) {
      if (!(error instanceof PidSignalError)) throw error;
      const code = error.kind === 'missing' ? 'not_found' : error.kind === 'unsupported' ? 'unavailable' : 'conflict';
      const lead = error.kind === 'survived' ? 'Not ended' : 'Not stopped';
      throw new ToolCallError(
        code,
        `${lead}: ${error.message}.${port !== null ? ` (${who.replace(/,$/, '')})` : ''}`,
        `${lead}: ${error.message}.`,
      );
    }
  };

  const byPort = async (context: ToolContext, port: number): Promise<ToolOutcome> => {
    const sessionId = context.sessionId;
    const lookup = await findPortOwner(port);
    if (!lookup.found) {
      throw new ToolCallError(
        lookup.reason === 'unsupported' ? 'unavailable' : 'not_found',
        `${lookup.detail[0]!.toUpperCase()}${lookup.detail.slice(1)}; nothing was stopped.`,
        `Nothing was stopped: ${lookup.detail}.`,
      );
    }
    const owner: PortOwner = lookup.owner;
    for (const holder of owner.holders) {
      const owned = ownerTask(sessionId, holder);
      if (owned)
        return stopTask(sessionId, owned.taskId, { port, pid: holder, command: owner.command || null }, owned.how);
    }
    return stopProcess(context, owner.pid, port, owner.command || null);
  };

  return {
    name: 'kill_shell',
    aliases: ['KillShell'],
    description:
      `Stop by exactly one of ${KILL_TARGETS}. A task of yours (by id, or a pid or port of its processes) is stopped as a whole; ` +
      'any other process is signalled alone (SIGTERM, SIGKILL after a grace) once the person allows it. Use it to free a port.',
    input: KillShellInput,
    async execute(args: z.output<typeof KillShellInput>, context) {
      const target = killTarget(args);
      if ('task_id' in target) return stopTask(context.sessionId, target.task_id);
      if ('port' in target) return byPort(context, target.port);
      const owned = ownerTask(context.sessionId, target.pid);
      if (owned) return stopTask(context.sessionId, owned.taskId, { pid: target.pid }, owned.how);
      return stopProcess(context, target.pid, null, null);
    },
  };
}
