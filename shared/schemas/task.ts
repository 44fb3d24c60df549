import { z } from 'zod';
import { IdSchema, TimestampSchema } from './session.js';

export const TASK_STATUSES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'timed_out',
  'stopped',
  'orphaned',
  'lost',
] as const;
export const TaskStatusSchema = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/**
 * Statuses a task never leaves. `orphaned` is derived on read, never stored: a record of an earlier
 * run that still claims to run. `lost` is stored: an orphan whose processes were proven gone.
 */
/** Quiet this long while running, and a task is "silent". */
export const SILENT_AFTER_SECONDS = 60;

export const SETTLED_STATUSES: readonly TaskStatus[] = [
  'succeeded',
  'failed',
  'timed_out',
  'stopped',
  'orphaned',
  'lost',
];
export function isSettled(status: TaskStatus): boolean {
  return SETTLED_STATUSES.includes(status);
}

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
