import type { z } from 'zod';
import {
  CronCreateInput,
  CronDeleteInput,
  CronListInput,
  LoopNextInput,
  LoopStopInput,
  MAX_SCHEDULES_PER_SESSION,
  type Schedule,
} from '../../shared/schemas/schedule.js';
import type { AgentTool } from '../agent/tools.js';
import { publicSchedule, type StoredSchedule } from './schedule-store.js';
import { formatLocal, type Scheduler } from './scheduler.js';

/**
 * The model's scheduling tools: cron schedules and reminders (cron_create, cron_list, cron_delete)
 * and the two calls a self-paced loop's pass ends with (loop_next, loop_stop). A loop itself starts
 * only from /loop typed by the person.
 */
export function scheduleTools(scheduler: () => Scheduler, timeZone?: string): AgentTool[] {
  const when = (ms: string | null) => (ms === null ? 'not set' : formatLocal(Date.parse(ms), timeZone));
  const line = (schedule: Schedule) =>
    [
      `${schedule.id} [${schedule.kind === 'self_paced' ? 'self-paced loop' : schedule.kind === 'loop' ? 'loop' : schedule.recurring ? 'recurring' : 'one-shot'}${schedule.durable ? ', durable' : ''}${schedule.paused ? ', paused' : ''}${schedule.held ? ', held after a restart' : ''}]`,
      schedule.cron ? `cron "${schedule.cron}" (${schedule.label})` : schedule.label,
      `next ${when(schedule.nextFireAt)}${schedule.finalFire ? ' (final run)' : ''}`,
      ...(schedule.expiresAt ? [`expires ${when(schedule.expiresAt)}`] : []),
      `prompt: ${schedule.prompt ? oneLine(schedule.prompt) : 'the default task (loop.md)'}`,
    ].join(' | ');

  const cronCreate: AgentTool = {
    name: 'cron_create',
    aliases: ['CronCreate'],
    description:
      'Schedule a prompt in this conversation: a reminder (recurring: false, deleted after it runs) or a recurring ' +
      'schedule (runs at every match for 7 days, then once more at expiry). Five-field cron in local time. It runs ' +
      `only between turns, never twice for one missed time. At most ${MAX_SCHEDULES_PER_SESSION} per conversation. ` +
      'durable: true only when the person explicitly asked for a machine-level job that does not depend on this ' +
      'conversation. For a loop the person wants now and then again, they type /loop.',
    input: CronCreateInput,
    async execute(args: z.output<typeof CronCreateInput>, context) {
      const stored = scheduler().create(context.sessionId, args);
      const made = publicSchedule(stored);
      const early =
        !made.recurring && stored.jitterMs < 0
          ? ' Set for :00 or :30, it may run up to 90 s early; pick another minute if the exact time matters.'
          : '';
      const lifetime = made.recurring
        ? ` It expires ${when(made.expiresAt)}, after one final run then.`
        : ' It runs once and is then deleted.';
      const durable = made.durable
        ? ' It is durable (machine-level), so it waits, paused, until the person turns it on in the Schedules panel; tell them so.'
        : '';
      const text = `Scheduled ${made.id}: cron "${made.cron}", next run ${when(made.nextFireAt)}.${lifetime}${early}${durable}`;
      return { text, display: { kind: 'text', text } };
    },
  };

  const cronList: AgentTool = {
    name: 'cron_list',
    aliases: ['CronList'],
    description: "This conversation's schedules and loops (and the machine's durable jobs), with their ids.",
    input: CronListInput,
    async execute(_args: z.output<typeof CronListInput>, context) {
      const own = scheduler().list(context.sessionId);
      const durable = scheduler().list(null);
      const lines = [...own, ...durable].map(line);
      const text = lines.length
        ? `${lines.join('\n')}\n${own.length} of ${MAX_SCHEDULES_PER_SESSION} in this conversation${durable.length ? `, ${durable.length} durable` : ''}.`
        : 'No schedules or loops.';
      return { text, display: { kind: 'text', text: `${own.length + durable.length} schedules and loops` } };
    },
  };

  const cronDelete: AgentTool = {
    name: 'cron_delete',
    aliases: ['CronDelete'],
    description: 'Delete a schedule or loop (fixed or self-paced) by its eight-character id.',
    input: CronDeleteInput,
    async execute(args: z.output<typeof CronDeleteInput>, context) {
      const gone = scheduler().delete(args.id, context.sessionId);
      const text = `Deleted ${gone.id} (${describe(gone)}).`;
      return { text, display: { kind: 'text', text } };
    },
  };

  const loopNext: AgentTool = {
    name: 'loop_next',
    aliases: ['ScheduleWakeup', 'schedule_wakeup'],
    description:
      "Ends a pass of this conversation's self-paced loop by choosing when the next pass runs (60 to 3600 seconds) " +
      'and why; it replaces any pending one. Short delays while things change, longer ones once they settle.',
    input: LoopNextInput,
    async execute(args: z.output<typeof LoopNextInput>, context) {
      const { text } = scheduler().loopNext(context.sessionId, args.delay_seconds, args.reason);
      return { text, display: { kind: 'text', text } };
    },
  };

  const loopStop: AgentTool = {
    name: 'loop_stop',
    aliases: [],
    description: "Ends this conversation's self-paced loop once its task is done.",
    input: LoopStopInput,
    async execute(args: z.output<typeof LoopStopInput>, context) {
      const loop = scheduler().loopStop(context.sessionId);
      const text = `Stopped the self-paced loop ${loop.id}${args.reason ? `: ${args.reason}` : ''}.`;
      return { text, display: { kind: 'text', text } };
    },
  };

  return [cronCreate, cronList, cronDelete, loopNext, loopStop];
}

function describe(schedule: StoredSchedule): string {
  return schedule.kind === 'self_paced' ? 'a self-paced loop' : `${schedule.label}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}
