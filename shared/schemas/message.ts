import { z } from 'zod';
import { IdSchema, TimestampSchema } from './session.js';

export const MESSAGE_TEXT_MAX = 100_000;

/** `tool` rows stand for a task (a shell line now, the model's tool calls later). */
export const RoleSchema = z.enum(['user', 'assistant', 'system', 'tool']);
export type Role = z.infer<typeof RoleSchema>;

export const MessageSchema = z.object({
  id: z.number().int().positive(),
  sessionId: IdSchema,
  role: RoleSchema,
  text: z.string(),
  /** The task a tool row stands for. */
  taskId: z.string().nullable(),
  createdAt: TimestampSchema,
});
export type Message = z.infer<typeof MessageSchema>;

export const MessageTextSchema = z
  .string()
  .refine((text) => text.trim().length > 0, 'must not be empty')
  .refine((text) => text.length <= MESSAGE_TEXT_MAX, `is too long (at most ${MESSAGE_TEXT_MAX} characters)`);
