import type { Statement } from 'better-sqlite3';
import { z } from 'zod';
import { DroverError, issuePath } from '../../shared/ipc/errors.js';

/** A stored row that no longer fits its schema: named by table and id, never silently dropped or guessed at. */
export function unreadableRow(kind: string, row: unknown, error: z.ZodError): DroverError {
  const id = typeof row === 'object' && row !== null ? (row as { id?: unknown }).id : undefined;
  const issue = error.issues[0];
  const where = issue ? `${issuePath(issue.path)}: ${issue.message}` : 'invalid';
  // 'unavailable', not 'internal': the person can act on it, and the row is named for them.
  return new DroverError(
    'unavailable',
    `Unreadable ${kind} row ${String(id)}: ${where}. It is kept in the database as it is; the other rows are unaffected.`,
  );
}

/** Parses a stored row against its schema; a row that no longer fits is an error naming it. */
export function parseRow<S extends z.ZodType>(schema: S, kind: string, row: unknown): z.output<S> {
  const parsed = schema.safeParse(row);
  if (!parsed.success) throw unreadableRow(kind, row, parsed.error);
  return parsed.data;
}

/** Where a list reports the rows it had to leave out (the composition root's log). */
export type UnreadableRowReport = (message: string) => void;

export const reportToConsole: UnreadableRowReport = (message) => console.error(`drover: ${message}`);

/**
 * Converts every row of a list, leaving out (and reporting, by name) those that no longer fit:
 * one damaged row must not hide all the good ones. The row itself stays in the database.
 */
export function readableRows<T>(
  rows: readonly unknown[],
  convert: (row: unknown) => T,
  report: UnreadableRowReport,
): T[] {
  const out: T[] = [];
  for (const row of rows) {
    try {
      out.push(convert(row));
    } catch (error) {
      if (!(error instanceof DroverError)) throw error;
      report(error.message);
    }
  }
  return out;
}

/** Milliseconds since 1970 that a Date can hold: a stored time outside it would throw when shown. */
export const TimestampSchema = z.number().int().min(0).max(8.64e15);

/**
 * Every row a statement answers, as plain objects keyed by column name, read as arrays: with 44
 * columns better-sqlite3 builds each row object far more slowly than an array (a session of
 * 10,000 tasks: 240 ms against 90 ms), so the objects are built here instead. `statement` must
 * have been prepared for this alone: it is switched to raw mode.
 */
export function allRows(statement: Statement, ...params: unknown[]): Record<string, unknown>[] {
  statement.raw(true);
  const names = statement.columns().map((column) => column.name);
  return (statement.all(...params) as unknown[][]).map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
    return row;
  });
}
