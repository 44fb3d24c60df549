import { z } from 'zod';
import { IdSchema, TimestampSchema } from './session.js';

/**
 * Scheduling (issue #16): the scheduler's figures, the schedule a client sees, and the model's
 * scheduling tools, each declared once.
 */

/** A conversation holds at most this many schedules (cron schedules and loops together). */
export const MAX_SCHEDULES_PER_SESSION = 50;
/** Recurring schedules and loops end this long after they were made, after one final run. */
export const RECURRING_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** A self-paced loop's iteration chooses its next check within these bounds. */
export const LOOP_DELAY_MIN_SECONDS = 60;
export const LOOP_DELAY_MAX_SECONDS = 3600;
/** An iteration that neither chose its next check nor stopped gets this one safety check. */
export const LOOP_SAFETY_CHECK_MS = 20 * 60 * 1000;
/** The longest prompt a schedule keeps. */
export const SCHEDULE_PROMPT_MAX = 4000;

export const ScheduleIdSchema = z
  .string()
  .regex(/^[a-z0-9]{8}$/, 'is not a schedule id (eight lower-case letters and digits, as cron_list shows)');

/** `cron`: made with cron_create; `loop`: a fixed /loop; `self_paced`: a /loop whose iterations pick the next check. */
export const ScheduleKindSchema = z.enum(['cron', 'loop', 'self_paced']);
export type ScheduleKind = z.infer<typeof ScheduleKindSchema>;

export const ScheduleSchema = z.object({
  id: ScheduleIdSchema,
  /** The conversation it belongs to; null for a durable job (machine-level). */
  sessionId: IdSchema.nullable(),
  kind: ScheduleKindSchema,
  /** Five-field cron; null for a self-paced loop. */
  cron: z.string().nullable(),
  /** What it asks the agent; empty for the default maintenance task (loop.md). */
  prompt: z.string(),
  /** When it runs, in words ("every 5 minutes", "once, at 14:30", "self-paced"). */
  label: z.string(),
  recurring: z.boolean(),
  durable: z.boolean(),
  createdAt: TimestampSchema,
  /** When a recurring schedule or loop ends (after its final run); null for a one-shot. */
  expiresAt: TimestampSchema.nullable(),
  /** The next run; null while a self-paced iteration has yet to choose it. */
  nextFireAt: TimestampSchema.nullable(),
  /** The next run is the final one (the lifetime ends). */
  finalFire: z.boolean(),
  lastFiredAt: TimestampSchema.nullable(),
  /** How the last run went, in words, or null before the first. */
  lastResult: z.string().nullable(),
  fireCount: z.number().int().nonnegative(),
  /** Paused by the person (or, made durable by the model, not yet turned on). */
  paused: z.boolean(),
  /** Found by a restart, it waits for the person's word before it runs (the resume guard). */
  held: z.boolean(),
  /** Self-paced: why the iteration chose this delay ("the build takes about 10 minutes"). */
  nextReason: z.string().nullable(),
  /** A durable one-shot whose time passed while Drover was closed: it waits for the person. */
  needsConfirmation: z.boolean(),
});
export type Schedule = z.infer<typeof ScheduleSchema>;

const Prompt = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(SCHEDULE_PROMPT_MAX, `is too long (at most ${SCHEDULE_PROMPT_MAX} characters)`);

export const CronCreateInput = z
  .object({
    cron: z
      .string()
      .min(1)
      .describe(
        'Five fields, local time: minute hour day-of-month month day-of-week. *, numbers, ranges (1-5), steps (*/15) and lists (1,15); no names or @aliases',
      ),
    prompt: Prompt.describe('What to do when it fires, as you would ask it yourself'),
    recurring: z
      .boolean()
      .default(true)
      .describe('true: runs at every match for 7 days (one final run at expiry); false: once, then it is deleted'),
    durable: z
      .boolean()
      .default(false)
      .describe(
        'Only when the person explicitly asked for a machine-level schedule that runs without this conversation',
      ),
  })
  .strict();

export const CronDeleteInput = z
  .object({ id: ScheduleIdSchema.describe('The eight-character id from cron_create or cron_list') })
  .strict();
export const CronListInput = z.object({}).strict();

export const LoopNextInput = z
  .object({
    delay_seconds: z
      .number()
      .int()
      .min(LOOP_DELAY_MIN_SECONDS, `must be at least ${LOOP_DELAY_MIN_SECONDS} (one minute)`)
      .max(LOOP_DELAY_MAX_SECONDS, `must be at most ${LOOP_DELAY_MAX_SECONDS} (one hour)`)
      .describe('How long until the next check, 60 to 3600 seconds'),
    reason: z.string().trim().min(1, 'must not be empty').max(200).describe('Why this delay, in a few words'),
  })
  .strict();

export const LoopStopInput = z
  .object({ reason: z.string().trim().max(200).optional().describe('Why the loop is done') })
  .strict();

/** What `/loop …` in the composer sends: the words after `/loop`. */
export const LoopCommandSchema = z.string().max(SCHEDULE_PROMPT_MAX, 'is too long');
