import { z } from 'zod';
import {
  CHECK_AFTER_DEFAULT_SECONDS,
  CheckAfterSecondsSchema,
  EVENTS_DEFAULT_BYTES,
  EVENTS_MAX_BYTES,
  MonitorNotifySchema,
  ReadyCheckSchema,
} from './task.js';

/**
 * The model's background tools: one schema each, giving the TypeScript type, the runtime
 * check and (through z.toJSONSchema) the JSON Schema the model is shown.
 */
const TaskId = z.string().min(1).describe('A task id as returned by run_command or list_tasks, like bg_12');

const ReadyInput = ReadyCheckSchema.describe(
  'Background only: when it counts as ready; every one given must hold. port: it listens on this port; ' +
    'http: this URL on this machine answers below 500; pattern: a line of its output matches this regular expression',
);
const NotifyOnReady = z.boolean().describe('With ready: wake you once when it is ready, or if it dies before it is');
/** One declaration for both command tools: the model's JSON Schema shows this text. */
const Tty = z
  .boolean()
  .default(false)
  .describe(
    'Run it in a terminal (default false: plain pipes, stdout and stderr merged in order, no colour). ' +
      'Only for a command that needs a terminal: it refuses to run without one, or prompts on it',
  );
const Sandbox = z
  .boolean()
  .default(true)
  .describe(
    'Run it in the sandbox (default true, where the session has one: writes only in the working folder and ' +
      'the temp folder, network only to allowed hosts). false runs it outside, and the person is always asked: ' +
      'use it only after the sandbox refused something the command really needs',
  );
const WorkItemId = z
  .number()
  .int()
  .positive()
  .describe('Background only: the work item (task_create id) this serves; if it fails, the item is marked blocked');

export const RunCommandInput = z
  .object({
    command: z.string().min(1).describe('The shell command line to run'),
    cwd: z.string().min(1).optional().describe('Working directory; defaults to the session folder'),
    background: z
      .boolean()
      .default(false)
      .describe('Start it detached and return a task id at once (builds, test suites, installs, servers)'),
    expected_seconds: z
      .number()
      .int()
      .positive()
      .max(86_400)
      .optional()
      .describe('Your honest estimate of how long it takes'),
    timeout_seconds: z
      .number()
      .int()
      .positive()
      .max(86_400)
      .optional()
      .describe(
        'Foreground: how long to wait before the run moves to the background, never killed (default 30 s). Background: the hard limit; omit to derive it from the estimate',
      ),
    notify_on_finish: z
      .boolean()
      .default(false)
      .describe('Background only: start a new turn when the task ends, so you can stop waiting now'),
    ready: ReadyInput.optional(),
    notify_on_ready: NotifyOnReady.optional(),
    work_item_id: WorkItemId.optional(),
    tty: Tty,
    sandbox: Sandbox,
  })
  .strict();

export const MonitorCommandInput = z
  .object({
    command: z.string().min(1).describe('The long-running command to watch: a log tail, a watcher, a dev server'),
    cwd: z.string().min(1).optional().describe('Working directory; defaults to the session folder'),
    notify: MonitorNotifySchema.default('scheduled').describe(
      'scheduled (default): you are woken once when the check is due and again when it exits; exit: only when it exits; none: never',
    ),
    check_after_seconds: CheckAfterSecondsSchema.default(CHECK_AFTER_DEFAULT_SECONDS).describe(
      `When the check is due, in seconds after the start (default ${CHECK_AFTER_DEFAULT_SECONDS}, 5 to 86400)`,
    ),
    timeout_seconds: z
      .number()
      .int()
      .positive()
      .max(86_400)
      .optional()
      .describe('Hard limit; omit to let it run as long as any task may'),
    ready: ReadyInput.optional(),
    notify_on_ready: NotifyOnReady.optional(),
    work_item_id: WorkItemId.optional(),
    tty: Tty,
    sandbox: Sandbox,
  })
  .strict();

export const MonitorEventsInput = z
  .object({
    task_id: TaskId,
    from_offset: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Read once from this byte offset; the stored offset is left alone. Omit to continue where the last read ended',
      ),
    // No schema maximum: more than EVENTS_MAX_BYTES is clamped to it with a note, not refused.
    max_bytes: z
      .number()
      .int()
      .positive()
      .default(EVENTS_DEFAULT_BYTES)
      .describe(
        `Bytes to read at most (default ${EVENTS_DEFAULT_BYTES}; more than ${EVENTS_MAX_BYTES} is clamped to it)`,
      ),
  })
  .strict();

export const ListTasksInput = z
  .object({
    include_settled: z.boolean().default(true).describe('Include finished tasks (default true)'),
  })
  .strict();

export const READ_WAIT_DEFAULT_SECONDS = 60;
export const READ_WAIT_MAX_SECONDS = 300;

export const ReadTaskOutputInput = z
  .object({
    task_id: TaskId,
    wait: z.boolean().default(false).describe('Block until the task ends or the timeout passes'),
    // No schema maximum: a longer wait is clamped to READ_WAIT_MAX_SECONDS with a note, not refused.
    timeout_seconds: z
      .number()
      .int()
      .nonnegative()
      .default(READ_WAIT_DEFAULT_SECONDS)
      .describe(
        `How long to wait when wait is true (default ${READ_WAIT_DEFAULT_SECONDS}; a longer wait than ${READ_WAIT_MAX_SECONDS} is clamped to it)`,
      ),
    tail_lines: z.number().int().positive().max(100_000).optional().describe('Only the last N lines'),
  })
  .strict();

export const StopTaskInput = z.object({ task_id: TaskId }).strict();
export const ReapTasksInput = z.object({}).strict();

/** The longest single request sleep takes (a day); the per-call cap in the settings is usually far below. */
export const SLEEP_REQUEST_MAX_SECONDS = 86_400;
export const SLEEP_REASON_MAX = 200;
/** A time of day on the 24-hour clock: 0:00 or 00:00 to 23:59. */
export const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)$/;

export const SleepInput = z
  .object({
    seconds: z
      .number()
      .int('must be a whole number of seconds')
      .positive('must be more than 0')
      .max(SLEEP_REQUEST_MAX_SECONDS, `must be at most ${SLEEP_REQUEST_MAX_SECONDS} (a day)`)
      .optional()
      .describe('How long to sleep, in seconds (give this or until, not both)'),
    until: z
      .string()
      .regex(TIME_OF_DAY, 'must be a time of day as HH:MM, from 00:00 to 23:59')
      .optional()
      .describe(
        'Sleep until this local time of day, HH:MM on the 24-hour clock: today if it is still ahead, else tomorrow (give this or seconds, not both)',
      ),
    reason: z
      .string()
      .trim()
      .max(SLEEP_REASON_MAX)
      .optional()
      .describe('What you are waiting for, in a few words; the person sees it while you sleep'),
  })
  .strict()
  .superRefine((input, context) => {
    if (input.seconds !== undefined && input.until !== undefined)
      context.addIssue({ code: 'custom', path: ['until'], message: 'give seconds or until, not both' });
    else if (input.seconds === undefined && input.until === undefined)
      context.addIssue({ code: 'custom', path: ['seconds'], message: 'give seconds (how long) or until (HH:MM)' });
  });

export type RunCommandArgs = z.output<typeof RunCommandInput>;
export type ReadTaskOutputArgs = z.output<typeof ReadTaskOutputInput>;
export type MonitorCommandArgs = z.output<typeof MonitorCommandInput>;
export type MonitorEventsArgs = z.output<typeof MonitorEventsInput>;
export type SleepArgs = z.output<typeof SleepInput>;

/** The longest task one sub-agent may be given. */
export const AGENT_TASK_PROMPT_MAX = 50_000;

export const AgentInput = z
  .object({
    description: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('A short title for the work (3 to 8 words), shown to the person'),
    prompt: z
      .string()
      .trim()
      .min(1)
      .max(AGENT_TASK_PROMPT_MAX)
      .describe('The whole task: the agent sees nothing of this conversation, so say everything it needs'),
    agent: z.string().min(1).max(40).optional().describe('Which agent definition runs it (default general-purpose)'),
    background: z
      .boolean()
      .default(false)
      .describe('Return at once with its task id (agt_N) and let it work beside you (run_in_background)'),
    notify_on_finish: z
      .boolean()
      .default(true)
      .describe('Background only: wake you when it ends (its outcome; read the result with agent_output)'),
  })
  .strict();

export const AgentOutputInput = z
  .object({
    task_id: TaskId.describe('An agent task id as returned by agent, like agt_3'),
    wait: z.boolean().default(false).describe('Block until the agent ends or the timeout passes'),
    timeout_seconds: z
      .number()
      .int()
      .nonnegative()
      .default(READ_WAIT_DEFAULT_SECONDS)
      .describe(
        `How long to wait when wait is true (default ${READ_WAIT_DEFAULT_SECONDS}; a longer wait than ${READ_WAIT_MAX_SECONDS} is clamped to it)`,
      ),
    action: z.enum(['kill']).optional().describe('kill: stop the agent (and the tasks it started) now'),
  })
  .strict();

export type AgentArgs = z.output<typeof AgentInput>;
export type AgentOutputArgs = z.output<typeof AgentOutputInput>;
