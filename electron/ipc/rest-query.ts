import { z } from 'zod';
import { TaskRowSchema } from '../../shared/schemas/task.js';
import type { FinishedPage } from '../../shared/schemas/task-page.js';

/**
 * How REST spells the contract's values in a path or a query string (rest-routes.ts maps the
 * paths): text as sent, numbers parsed where they are numbers, a finished page's cursor as one
 * word. What does not parse is passed on as sent, so the contract's validation names the field.
 */

/**
 * A finished page's cursor as REST spells it: one word, `AT.N` (the last row's start time in ms and
 * its task number), so a client passes `next` back as `?after=` unchanged.
 */
export const RestCursorSchema = z
  .string()
  .regex(/^-?\d{1,16}\.\d{1,12}$/)
  .describe("The `next` of the page before, as it came (the last row's start time in ms, a dot, its task number)");
export const RestPageSchema = z.object({ tasks: z.array(TaskRowSchema), next: RestCursorSchema.nullable() });

/** A query parameter passed on as text when given. */
export function optionalText(query: URLSearchParams, name: string, key = name): Record<string, unknown> {
  const raw = query.get(name);
  return raw === null ? {} : { [key]: raw };
}

export function restPage(page: FinishedPage): { tasks: FinishedPage['tasks']; next: string | null } {
  return { tasks: page.tasks, next: page.next ? `${page.next.at}.${page.next.n}` : null };
}

/** `?after=AT.N` to the contract's cursor; anything else is passed on as sent, so validation names `after`. */
export function cursorFrom(query: URLSearchParams): Record<string, unknown> {
  const raw = query.get('after');
  if (raw === null) return {};
  const match = /^(-?\d{1,16})\.(\d{1,12})$/.exec(raw);
  return { after: match ? { at: Number(match[1]), n: Number(match[2]) } : raw };
}

/** A query parameter the contract wants as a number; a non-number is passed on so validation names it. */
export function optionalNumber(query: URLSearchParams, name: string, key = name): Record<string, unknown> {
  const raw = query.get(name);
  if (raw === null) return {};
  return { [key]: /^-?\d+$/.test(raw) ? Number(raw) : raw };
}

/** A work item id from the path: a number, or the text as sent so validation names it. */
export function itemNumber(text: string): number | string {
  return /^\d{1,15}$/.test(text) ? Number(text) : text;
}
