import type { z } from 'zod';
import { DroverError, issuePath } from '../../shared/ipc/errors.js';

/** A stored row that no longer fits its schema: named by table and id, never silently dropped or guessed at. */
export function unreadableRow(kind: string, row: unknown, error: z.ZodError): DroverError {
  const id = typeof row === 'object' && row !== null ? (row as { id?: unknown }).id : undefined;
  const issue = error.issues[0];
  const where = issue ? `${issuePath(issue.path)}: ${issue.message}` : 'invalid';
  return new DroverError('internal', `Unreadable ${kind} row ${String(id)}: ${where}`);
}

/** Parses a stored row against its schema; a row that no longer fits is an error naming it. */
export function parseRow<S extends z.ZodType>(schema: S, kind: string, row: unknown): z.output<S> {
  const parsed = schema.safeParse(row);
  if (!parsed.success) throw unreadableRow(kind, row, parsed.error);
  return parsed.data;
}
