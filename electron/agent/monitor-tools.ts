import type { z } from 'zod';
import { EVENTS_MAX_BYTES } from '../../shared/schemas/task.js';
import { MonitorCommandInput, MonitorEventsInput } from '../../shared/schemas/tools.js';
import type { TaskPool } from '../pool/pool.js';
import { formatDuration } from '../pool/adoption.js';
import { readTaskEvents } from '../pool/task-events.js';
import { fence } from './fence.js';
import { portHint } from './port-hint.js';
import { notRun, workItemFor } from './run-command.js';
import { describeReadyCheck } from '../pool/readiness.js';
import type { AgentTool, WorkItemLink } from './tools.js';

/** monitor_command and monitor_events: watch long-running output without polling it. */
export function monitorTools(
  pool: TaskPool,
  requireTask: (sessionId: string, id: string) => void,
  link?: WorkItemLink,
): AgentTool[] {
  const monitorCommand: AgentTool = {
    name: 'monitor_command',
    aliases: ['MonitorCommand'],
    description:
      'Start a long-running monitor in the background (a log tail, a watcher, a dev server): returns its id (mon_N), pid, ' +
      'cwd and log path at once. notify scheduled (default) wakes you when its check is due (check_after_seconds, default 45) ' +
      'and again when it exits; exit only at its exit; none never. Do not poll it: read new output with monitor_events.',
    input: MonitorCommandInput,
    async execute(args: z.output<typeof MonitorCommandInput>, context) {
      const cwd = args.cwd ?? context.cwd;
      const workItem = workItemFor(link, context.sessionId, args.work_item_id);
      const permission = await context.permit(args.command, cwd, true, {
        sandboxable: true,
        outside: args.sandbox === false,
      });
      if (!permission.allowed) return notRun(permission, args.command);
      const record = await pool.start({
        sessionId: context.sessionId,
        kind: 'monitor',
        command: args.command,
        cwd,
        tty: args.tty === true,
        sandboxed: permission.sandboxed === true,
        timeoutSeconds: args.timeout_seconds,
        notifyMode: args.notify,
        checkAfterSeconds: args.check_after_seconds,
        ready: args.ready,
        notifyOnReady: args.notify_on_ready,
        workItem,
        owner: context.owner?.taskId,
      });
      context.onTask?.(record.id);
      const row = pool.row(context.sessionId, record.id);
      const wakes = {
        scheduled: `You will be woken when its check is due (in ${formatDuration(args.check_after_seconds)}) and when it exits.`,
        exit: 'You will be woken when it exits.',
        none: 'It will not wake you; read it with monitor_events when you choose.',
      }[args.notify];
      return {
        taskId: record.id,
        display: { kind: 'started', taskId: record.id },
        text: [
          `Started monitor ${row.id}: ${row.status}${row.pid ? `, pid ${row.pid}` : ''}, in ${row.cwd}.`,
          `Log: ${row.logPath}. Hard timeout ${formatDuration(row.timeoutSeconds)}.`,
          row.error ? `It could not start: ${row.error}.` : '',
          row.readyCheck ? `Ready when: ${describeReadyCheck(row.readyCheck)}.` : '',
          `${wakes} Do not poll it; keep working or end your turn.`,
          portHint(pool.list(context.sessionId), args.command, row.id),
        ]
          .filter(Boolean)
          .join('\n'),
      };
    },
  };

  const monitorEvents: AgentTool = {
    name: 'monitor_events',
    aliases: ['MonitorEvents'],
    description:
      "Read a monitor's (or any task's) output that is new since your last read: from its stored byte offset, which then " +
      'moves on. from_offset reads once from there and leaves the stored offset alone. max_bytes defaults to 8192 (at most 1 MiB).',
    input: MonitorEventsInput,
    async execute(args: z.output<typeof MonitorEventsInput>, context) {
      requireTask(context.sessionId, args.task_id);
      const maxBytes = Math.min(args.max_bytes, EVENTS_MAX_BYTES);
      const read = await readTaskEvents(pool, context.sessionId, args.task_id, {
        fromOffset: args.from_offset,
        maxBytes,
      });
      const row = pool.row(context.sessionId, args.task_id);
      const head = [
        `task_status: ${row.status}`,
        `from_offset: ${read.fromOffset}`,
        `next_offset: ${read.nextOffset}`,
        `log_size: ${read.logSize}`,
        `more: ${read.more ? 'yes: more output is waiting past next_offset' : 'no'}`,
      ];
      if (args.max_bytes > EVENTS_MAX_BYTES)
        head.push(`note: max_bytes ${args.max_bytes} was asked; ${EVENTS_MAX_BYTES} is the most one read returns.`);
      if (args.from_offset !== undefined && read.fromOffset !== args.from_offset)
        head.push(
          `note: byte ${args.from_offset} fell inside a character or escape sequence, so the read starts at ${read.fromOffset}.`,
        );
      if (read.nextOffset === read.fromOffset && !read.more) head.push('No new output since the last read.');
      return {
        taskId: row.id,
        display: { kind: 'events', bytes: read.nextOffset - read.fromOffset, more: read.more },
        text: `${head.join('\n')}\n${fence(read.text, row.id)}`,
      };
    },
  };

  return [monitorCommand, monitorEvents];
}
