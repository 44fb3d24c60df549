import { z } from 'zod';

export const IdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'is too long (at most 64 characters)')
  .regex(/^[A-Za-z0-9_-]+$/, 'may hold only letters, digits, "-" and "_"');

export const TimestampSchema = z.iso.datetime({ offset: true });

export const TITLE_MAX = 200;
export const DEFAULT_SESSION_TITLE = 'New session';

export const TitleSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(TITLE_MAX, `is too long (at most ${TITLE_MAX} characters)`);

export const SessionSchema = z.object({
  id: IdSchema,
  title: z.string(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  messageCount: z.number().int().nonnegative(),
});
export type Session = z.infer<typeof SessionSchema>;
