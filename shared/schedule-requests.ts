import { z } from 'zod';
import { event, request } from './ipc/define.js';
import { IdSchema } from './schemas/session.js';
import { LoopCommandSchema, ScheduleIdSchema, ScheduleSchema } from './schemas/schedule.js';
import { BudgetStateSchema } from './schemas/budget.js';

/**
 * The contract's requests for scheduling: a session's schedules and loops, the machine's durable
 * jobs, /loop from the composer, and the resume guard's answers after a restart.
 */

/** A session's schedules (or, null, the durable jobs), and whether they wait for the person after a restart. */
const ScheduleListSchema = z.object({ schedules: z.array(ScheduleSchema), held: z.boolean() });
const BySchedule = z.object({ id: ScheduleIdSchema }).strict();
/** Whose held schedules: a session's, or (null) the durable jobs. */
const HeldOwner = z.object({ sessionId: IdSchema.nullable() }).strict();

export const scheduleRequests = {
  listSchedules: request({
    input: z.object({ sessionId: IdSchema }).strict(),
    output: ScheduleListSchema,
    summary: "A session's schedules and loops, soonest first by creation",
  }),
  listDurableJobs: request({
    input: z.object({}).strict(),
    output: ScheduleListSchema,
    summary: "The machine's durable jobs (made with durable: true)",
  }),
  deleteSchedule: request({
    input: z.object({ id: ScheduleIdSchema, sessionId: IdSchema.optional() }).strict(),
    output: z.object({ schedule: ScheduleSchema }),
    summary: 'Delete a schedule, loop or durable job (with sessionId: only one of that session)',
  }),
  pauseSchedule: request({
    input: BySchedule.extend({ paused: z.boolean() }).strict(),
    output: ScheduleSchema,
    summary: 'Pause or resume one schedule (resumed late, it runs at its next time, never to catch up)',
  }),
  runScheduleNow: request({
    input: BySchedule,
    output: ScheduleSchema,
    summary: 'Run a schedule now (as soon as its session has no turn running); confirms a missed durable one-shot',
  }),
  startLoop: request({
    input: z.object({ sessionId: IdSchema, args: LoopCommandSchema }).strict(),
    output: z.object({ schedule: ScheduleSchema, confirmation: z.string() }),
    summary: '/loop typed by the person: "5m task", "task every 2h", or no interval for a self-paced loop',
  }),
  stopLoops: request({
    input: z.object({ sessionId: IdSchema }).strict(),
    output: z.object({ stopped: z.array(ScheduleSchema) }),
    summary: "Esc: end the session's loops (fixed and self-paced); reminders and cron schedules stay",
  }),
  heldSchedules: request({
    input: z.object({}).strict(),
    output: z.object({
      held: z.array(z.object({ sessionId: IdSchema.nullable(), schedules: z.array(ScheduleSchema) })),
    }),
    summary: 'After a restart: what waits for the person before it runs (the resume guard)',
  }),
  resumeHeld: request({
    input: HeldOwner,
    output: ScheduleListSchema,
    summary: "The resume guard's Resume all: these schedules run again (a missed window runs once, never a burst)",
  }),
  getBudget: request({
    input: z.object({ sessionId: IdSchema }).strict(),
    output: BudgetStateSchema,
    summary: "What the session's unattended turns (wake-ups, loop passes, scheduled prompts) have used of their budget",
  }),
  resumeBudget: request({
    input: z.object({ sessionId: IdSchema }).strict(),
    output: BudgetStateSchema,
    summary: 'Start the budget for unattended turns over (the person resumes them after it was spent)',
  }),
  pauseHeld: request({
    input: HeldOwner,
    output: ScheduleListSchema,
    summary: "The resume guard's Pause all: these schedules stay, paused",
  }),
};

export const scheduleEvents = {
  budgetChanged: event({
    payload: z.object({
      budget: BudgetStateSchema,
      /** Set when this change crossed 80 % or spent it: the person is notified. */
      told: z.enum(['warned', 'spent']).nullable(),
    }),
    summary: "A session's budget for unattended turns changed (used, told at 80 %, spent, resumed, its limits changed)",
  }),
  schedulesChanged: event({
    payload: z.object({ sessionId: IdSchema.nullable() }),
    summary: "A session's schedules (or, with null, the durable jobs) changed: made, run, paused, deleted",
  }),
};
