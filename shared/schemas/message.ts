import { z } from 'zod';
import { IdSchema, TimestampSchema } from './session.js';

export const MESSAGE_TEXT_MAX = 100_000;

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
  status: MessageStatusSchema,
  /** Part of a turn Drover started on its own (a wake-up when a task finished). */
  automated: z.boolean(),
  createdAt: TimestampSchema,
});
export type Message = z.infer<typeof MessageSchema>;

export const MessageTextSchema = z
  .string()
  .refine((text) => text.trim().length > 0, 'must not be empty')
  .refine((text) => text.length <= MESSAGE_TEXT_MAX, `is too long (at most ${MESSAGE_TEXT_MAX} characters)`);
