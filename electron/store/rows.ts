import type { z } from 'zod';
import { DroverError, issuePath } from '../../shared/ipc/errors.js';

/** A stored row that no longer fits its schema: named by table and id, never silently dropped or guessed at. */
export function unreadableRow(kind: string, row: unknown, error: z.ZodError): DroverError {
  const id = typeof row === 'object' && row !== null ? (row as { id?: unknown }).id : undefined;
  const issue = error.issues[0];
  const where = issue ? `${issuePath(issue.path)}: ${issue.message}` : 'invalid';
  return new DroverError('internal', `Unreadable ${kind} row ${String(id)}: ${where}`);
}
