import { z } from 'zod';

export const IdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'is too long (at most 64 characters)')
  .regex(/^[A-Za-z0-9_-]+$/, 'may hold only letters, digits, "-" and "_"');

export const TimestampSchema = z.iso.datetime({ offset: true });

import { TITLE_MAX } from '../domain/limits.js';

export { TITLE_MAX };
export const DEFAULT_SESSION_TITLE = 'New session';

/**
 * Characters a title never holds: C0 and C1 controls (NUL, ESC, a newline…), DEL, and the bidi
 * and line-separator controls that can make a title read as something else in the list.
 */
export const TITLE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export const TitleSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(TITLE_MAX, `is too long (at most ${TITLE_MAX} characters)`)
  .refine((title) => !TITLE_FORBIDDEN.test(title), {
    message: 'must not hold control characters (such as NUL or ESC) or direction controls',
  });

/** A title made from free text (the first message): the characters a title may not hold become spaces. */
export function cleanTitleText(text: string): string {
  return text.replace(new RegExp(TITLE_FORBIDDEN.source, 'g'), ' ');
}

/**
 * How the agent works in a session. `plan`: it is told it is planning, and only read-only
 * commands run without asking, whatever the grants say. Only the person switches it.
 */
export const SessionModeSchema = z.enum(['agent', 'plan']);
export type SessionMode = z.infer<typeof SessionModeSchema>;

export const SessionSchema = z.object({
  id: IdSchema,
  title: z.string(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  messageCount: z.number().int().nonnegative(),
  mode: SessionModeSchema,
});
export type Session = z.infer<typeof SessionSchema>;
