import { z } from 'zod';
import { IdSchema, TimestampSchema } from './session.js';

export const MESSAGE_TEXT_MAX = 100_000;

export const RoleSchema = z.enum(['user', 'assistant', 'system']);
export type Role = z.infer<typeof RoleSchema>;

export const MessageSchema = z.object({
  id: z.number().int().positive(),
  sessionId: IdSchema,
  role: RoleSchema,
  text: z.string(),
  createdAt: TimestampSchema,
});
export type Message = z.infer<typeof MessageSchema>;

export const MessageTextSchema = z
  .string()
  .refine((text) => text.trim().length > 0, 'must not be empty')
  .refine((text) => text.length <= MESSAGE_TEXT_MAX, `is too long (at most ${MESSAGE_TEXT_MAX} characters)`);
