import { z } from 'zod';
import safeRegex from 'safe-regex2';
import { IdSchema, TimestampSchema } from './session.js';
import { AgentRowInfoSchema } from './subagent.js';
import { SandboxRefusalSchema } from './sandbox.js';
import { TASK_STATUSES } from '../domain/task-status.js';

export const TaskStatusSchema = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export { TASK_STATUSES, SILENT_AFTER_SECONDS, SETTLED_STATUSES, isSettled } from '../domain/task-status.js';

/**
 * How a task's processes are held together, so they can be ended as a whole: a cgroup of its own
 * (Linux), the process group its shell leads (elsewhere, and the fallback), a job object
 * (Windows), or only its proven process tree (Windows, when no job could be made).
 */
export const CONTAINMENTS = ['cgroup', 'group', 'job', 'tree'] as const;
export const ContainmentSchema = z.enum(CONTAINMENTS);
export type Containment = z.infer<typeof ContainmentSchema>;

export const TaskKindSchema = z.enum(['command', 'monitor', 'agent']);
export type TaskKind = z.infer<typeof TaskKindSchema>;

/** `bg_12`: short, stable, never reused (the counter resumes past every stored id). */
export const TaskIdSchema = z.string().regex(/^[a-z]+_[1-9][0-9]{0,11}$/, 'is not a task id (like bg_12)');

/** How a monitor wakes the agent: a ping once its check is due and again when it exits, only when it exits, or never. */
export const MONITOR_NOTIFY = ['scheduled', 'exit', 'none'] as const;
export const MonitorNotifySchema = z.enum(MONITOR_NOTIFY);
export type MonitorNotify = z.infer<typeof MonitorNotifySchema>;

/** A monitor's first check is due this long after it starts, unless told otherwise (seconds). */
export const CHECK_AFTER_DEFAULT_SECONDS = 45;
export const CHECK_AFTER_MIN_SECONDS = 5;
export const CHECK_AFTER_MAX_SECONDS = 86_400;
export const CheckAfterSecondsSchema = z.number().int().min(CHECK_AFTER_MIN_SECONDS).max(CHECK_AFTER_MAX_SECONDS);

/** A delta read of a log (monitor_events): the default and the most bytes one read returns. */
export const EVENTS_DEFAULT_BYTES = 8_192;
export const EVENTS_MAX_BYTES = 1_048_576;
export const EventsMaxBytesSchema = z.number().int().min(1).max(EVENTS_MAX_BYTES);

export const PortSchema = z.number().int().min(1).max(65_535);

/** Hosts a readiness probe may reach: this machine only, so a task's check is never a way to reach the network. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

function isLoopbackUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.includes(url.hostname);
  } catch {
    return false;
  }
}

function isRegExp(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * When a task counts as ready: every condition given holds. `port`: one of the task's own
 * processes listens on it; `http`: the URL (on this machine) answers with a status below 500;
 * `pattern`: a line of its output matches the regular expression.
 */
export const ReadyCheckSchema = z
  .object({
    port: PortSchema.optional(),
    http: z
      .string()
      .max(2_000)
      .refine(isLoopbackUrl, 'must be an http(s) URL on this machine (localhost, 127.0.0.1 or [::1])')
      .optional(),
    pattern: z
      .string()
      .min(1)
      .max(1_000)
      .refine(isRegExp, 'is not a valid regular expression')
      // It runs on every line a task prints: nested repetition could take exponential time on one line.
      .refine(
        (text) => !isRegExp(text) || safeRegex(text),
        'could take exponential time on a long line (nested repetition such as (a+)+); write it without',
      )
      .optional(),
  })
  .strict()
  .refine(
    (check) => check.port !== undefined || check.http !== undefined || check.pattern !== undefined,
    'needs at least one of port, http or pattern',
  );
export type ReadyCheck = z.infer<typeof ReadyCheckSchema>;

export const TaskRowSchema = z.object({
  id: TaskIdSchema,
  sessionId: IdSchema,
  kind: TaskKindSchema,
  status: TaskStatusSchema,
  command: z.string(),
  cwd: z.string(),
  /** The shell's number: 128+N for a signal death, never 0 for one. */
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** What a conventional non-error code means (grep 1: no matches), or why the task ended. */
  exitNote: z.string().nullable(),
  /** Why the task could not start or was ended by Drover, in words. */
  error: z.string().nullable(),
  pid: z.number().int().nullable(),
  queuedAt: TimestampSchema,
  startedAt: TimestampSchema.nullable(),
  endedAt: TimestampSchema.nullable(),
  elapsedSeconds: z.number().nonnegative(),
  expectedSeconds: z.number().int().positive().nullable(),
  timeoutSeconds: z.number().int().positive(),
  overdue: z.boolean(),
  running: z.boolean(),
  /** Seconds without output while running, once past the silence threshold; else null. */
  silentForSeconds: z.number().int().nonnegative().nullable(),
  /** When it last printed (this run), so a client can keep "silent for" current without asking again. */
  lastOutputAt: TimestampSchema.nullable(),
  notifyOnFinish: z.boolean(),
  /** Started in the foreground and handed to the pool when it outlived its wait. */
  adopted: z.boolean(),
  /** Started in the foreground (a `!` line, a foreground tool call); with `adopted`, later handed to the background. */
  foreground: z.boolean(),
  /**
   * Runs in a pseudo-terminal (true: the operator's lines, REST and UI starts, a model's command
   * that asked with tty: true) or on pipes (false: a model's commands by default, stdout and
   * stderr merged in order, no colour). A rerun keeps it. Rows from before pipes read true.
   */
  tty: z.boolean(),
  /** Runs (or ran) in the sandbox: its reads, writes and network were limited by the session's policy. */
  sandboxed: z.boolean(),
  /** What the sandbox refused it (paths it tried to write, hosts it tried to reach), the first ones; empty when none. */
  sandboxRefusals: z.array(SandboxRefusalSchema),
  /** Orphaned, and its processes are provably still running from an earlier run: stop or reap ends them. */
  leftover: z.boolean(),
  /** How its processes are held together; null until it starts. */
  containment: ContainmentSchema.nullable(),
  /** Why it is held less tightly than this machine allows (a cgroup could not be made), in words. */
  containmentNote: z.string().nullable(),
  /** Running, and its shell has exited while processes it started still run: it runs until they end. */
  leaderExited: z.boolean(),
  logPath: z.string(),
  /** Why the log stopped growing (the disk filled up) and how much output it misses; null while it holds everything. */
  logNote: z.string().nullable(),
  /** Monitors: when the agent is woken (scheduled: a ping when the check is due, and at exit); null for other tasks. */
  notifyMode: MonitorNotifySchema.nullable(),
  /** Monitors: seconds after the start when the check is due; null for other tasks. */
  checkAfterSeconds: z.number().int().positive().nullable(),
  /** Monitors: when the scheduled ping will wake the agent; null once sent, or when none is scheduled. */
  pingDueAt: TimestampSchema.nullable(),
  /** Monitors: when the ping woke the agent; null until it did. */
  pingedAt: TimestampSchema.nullable(),
  /** Where the next delta read (monitor_events) of its log starts, in bytes; survives restarts. */
  eventOffset: z.number().int().nonnegative(),
  /** TCP ports its processes listen on now, lowest first (empty where the OS does not tell). */
  ports: z.array(PortSchema),
  /** Its readiness: null (no check declared), false (not yet), true (see readyAt). */
  ready: z.boolean().nullable(),
  readyAt: TimestampSchema.nullable(),
  /** What counts as ready, as declared at its start. */
  readyCheck: ReadyCheckSchema.nullable(),
  /** Wakes the agent once when it becomes ready (or dies before it is). */
  notifyOnReady: z.boolean(),
  /** The work item this task was started for (work_item_id): a failure marks the item blocked. */
  workItem: z.object({ listId: z.string(), itemId: z.number().int().positive() }).nullable(),
  /** The agent task whose run started this one (stopping the agent stops it); null for the session's own. */
  ownerTaskId: TaskIdSchema.nullable(),
  /** Agent tasks: the definition, and what the run used of its limits; null for other tasks. */
  agent: AgentRowInfoSchema.nullable(),
});
export type TaskRow = z.infer<typeof TaskRowSchema>;

export const TaskOutputSchema = z.object({
  /** What a person would see on the terminal: escape sequences and redraws resolved. */
  text: z.string(),
  /** Bytes of output the task has produced in all. */
  totalBytes: z.number().int().nonnegative(),
  /** True when `text` starts later than the task's first byte. */
  truncated: z.boolean(),
});
export type TaskOutput = z.infer<typeof TaskOutputSchema>;

export const TaskWithOutputSchema = z.object({ task: TaskRowSchema, output: TaskOutputSchema });
export type TaskWithOutput = z.infer<typeof TaskWithOutputSchema>;

export const TaskListSchema = z.object({ tasks: z.array(TaskRowSchema), runningCount: z.number().int().nonnegative() });
export type TaskList = z.infer<typeof TaskListSchema>;

export const COMMAND_MAX = 32_000;
export const CommandSchema = z
  .string()
  .refine((text) => text.trim().length > 0, 'must not be empty')
  .refine((text) => text.length <= COMMAND_MAX, `is too long (at most ${COMMAND_MAX} characters)`)
  .refine((text) => !text.includes('\0'), 'must not contain NUL characters');

export const TailLinesSchema = z.number().int().min(1).max(100_000);
