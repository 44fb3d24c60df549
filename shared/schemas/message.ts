import { z } from 'zod';
import { MESSAGE_PAGE_DEFAULT, MESSAGE_PAGE_MAX } from '../domain/page-sizes.js';
import { IdSchema, TimestampSchema } from './session.js';
import { TaskOutputSchema, TaskStatusSchema } from './task.js';

import { MESSAGE_TEXT_MAX } from '../domain/limits.js';
import { MARKER_PATTERN } from '../domain/markdown-marker.js';

export { MESSAGE_TEXT_MAX };

/** `tool` rows stand for a task (a shell line now, the model's tool calls later). */
export const RoleSchema = z.enum(['user', 'assistant', 'system', 'tool']);
export type Role = z.infer<typeof RoleSchema>;

/** `waiting`: a tool row whose command waits for the person's answer; `rejected`: the person said no, so it never ran. */
export const MessageStatusSchema = z.enum([
  'streaming',
  'running',
  'waiting',
  'done',
  'error',
  'rejected',
  'cancelled',
]);
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

/**
 * How much of a task's output a tool row keeps with the message once the task settles: the newest
 * 200 lines, and at most 32 KiB of them. The row shows about 40 lines and "Show more" asks for more,
 * so 200 lines cover what a person reads there, while 1,000 commands add at most 32 MiB to the store.
 */
export const SNAPSHOT_OUTPUT_LINES = 200;
export const SNAPSHOT_OUTPUT_BYTES = 32 * 1024;

/**
 * What a tool row showed of its task, kept with the message so the transcript stays whole when the
 * task leaves the tasks panel (Clear, a deleted log). The output is the rendered tail, untrusted:
 * shown inert, like the live output.
 */
export const TaskSnapshotSchema = z.object({
  taskId: z.string(),
  command: z.string(),
  status: TaskStatusSchema,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  exitNote: z.string().nullable(),
  error: z.string().nullable(),
  startedAt: TimestampSchema.nullable(),
  endedAt: TimestampSchema.nullable(),
  elapsedSeconds: z.number().nonnegative(),
  foreground: z.boolean(),
  adopted: z.boolean(),
  /** The newest part of the output (`truncated`: earlier output is not kept here). */
  output: TaskOutputSchema,
  takenAt: TimestampSchema,
});
export type TaskSnapshot = z.infer<typeof TaskSnapshotSchema>;

/**
 * What a tool call or shell line came to, as facts the page words for the person (the model's
 * `toolResult` is worded for the model: fences, tool names, advice). `ran`: the row's task is the
 * whole answer (its status, exit and output show).
 */
export const ToolDisplaySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ran') }),
  z.object({ kind: z.literal('started'), taskId: z.string() }),
  /** A foreground run handed to the background: after its wait, or at once when the person asked. */
  z.object({
    kind: z.literal('moved'),
    taskId: z.string(),
    afterSeconds: z.number().nonnegative(),
    timeoutSeconds: z.number().int().positive(),
    requested: z.boolean(),
  }),
  /** Nothing could take the run over, so it was stopped. */
  z.object({ kind: z.literal('not_moved'), reason: z.string() }),
  z.object({ kind: z.literal('not_run'), rejected: z.boolean(), reason: z.string().nullable() }),
  z.object({ kind: z.literal('read'), finished: z.boolean(), waitedSeconds: z.number().nonnegative().nullable() }),
  z.object({ kind: z.literal('listed'), count: z.number().int().nonnegative() }),
  z.object({ kind: z.literal('stopped'), alreadySettled: z.boolean() }),
  /** kill_shell: a task stopped as a whole (taskId), or one process that was not Drover's signalled alone. */
  z.object({
    kind: z.literal('killed'),
    taskId: z.string().nullable(),
    pid: z.number().int().nullable(),
    port: z.number().int().nullable(),
    command: z.string().nullable(),
    /** The signal that ended a lone process; null for a task. */
    signal: z.enum(['SIGTERM', 'SIGKILL']).nullable(),
    alreadySettled: z.boolean(),
  }),
  /** monitor_events: how much new output was read, and whether more waits. */
  z.object({ kind: z.literal('events'), bytes: z.number().int().nonnegative(), more: z.boolean() }),
  /** Drover's own plain words (no child output, nothing addressed to the model). */
  z.object({ kind: z.literal('text'), text: z.string() }),
]);
export type ToolDisplay = z.infer<typeof ToolDisplaySchema>;

/** What sent a scheduled message: the schedule's id and kind, and when it runs in words. */
export const MessageScheduleSchema = z.object({
  id: z.string(),
  kind: z.enum(['cron', 'loop', 'self_paced']),
  label: z.string(),
});
export type MessageSchedule = z.infer<typeof MessageScheduleSchema>;

/**
 * An assistant reply's Markdown as the host rendered it (shared/domain/markdown.ts): HTML per
 * block, untrusted until the page sanitises it. Only in listMessages' answers, and only for
 * replies that are not still arriving; a message without it is rendered by the page.
 */
export const RenderedMarkdownSchema = z.object({
  marker: z.string().regex(MARKER_PATTERN),
  blocks: z.array(z.string()),
  languages: z.array(z.string()),
});

export const MessageSchema = z.object({
  id: z.number().int().positive(),
  sessionId: IdSchema,
  role: RoleSchema,
  /** User and assistant text; for a tool row, the command (shell) or a one-line summary of the call. */
  text: z.string(),
  /** The task a tool row stands for. */
  taskId: z.string().nullable(),
  /** A tool row of the model's: the tool called, its call id, its arguments and its result as the model saw it. */
  toolName: z.string().nullable(),
  toolCallId: z.string().nullable(),
  toolArgs: z.unknown().nullable(),
  toolResult: z.string().nullable(),
  /** What the call or shell line came to, for the person; null until it answers, and in older rows. */
  display: ToolDisplaySchema.nullable(),
  /** The task as the row last showed it, kept once it settles; null before then and in older rows. */
  taskSnapshot: TaskSnapshotSchema.nullable(),
  status: MessageStatusSchema,
  /** Part of a turn Drover started on its own (a wake-up when a task finished, a scheduled run). */
  automated: z.boolean(),
  /** The schedule or loop that sent this message, or null. */
  schedule: MessageScheduleSchema.nullable(),
  createdAt: TimestampSchema,
  rendered: RenderedMarkdownSchema.optional(),
});
export type Message = z.infer<typeof MessageSchema>;

export const MessageIdSchema = z.number().int().positive();

export { MESSAGE_PAGE_DEFAULT, MESSAGE_PAGE_MAX };
export const MessagePageLimitSchema = z.number().int().min(1).max(MESSAGE_PAGE_MAX);

export const MessageTextSchema = z
  .string()
  .refine((text) => text.trim().length > 0, 'must not be empty')
  .refine((text) => text.length <= MESSAGE_TEXT_MAX, `is too long (at most ${MESSAGE_TEXT_MAX} characters)`);
