import type { TaskRow } from '../../shared/schemas/task.js';
import { formatDuration } from '../pool/adoption.js';
import { isConventionalResult } from '../pool/exit-codes.js';

/**
 * How a task's end reads to the model, shared by tool answers and wake-ups so both say the same:
 * a conventional exit (grep's 1, "no matches found") is a result, never "did NOT succeed".
 */
export function exitWords(row: Pick<TaskRow, 'exitCode' | 'exitNote'>): string | null {
  if (row.exitCode !== null) return `exit code ${row.exitCode}${row.exitNote ? ` (${row.exitNote})` : ''}`;
  return row.exitNote;
}

/** True when the model must be told the task did not succeed (the row says failed, timed out or stopped). */
export function didNotSucceed(row: Pick<TaskRow, 'status' | 'exitCode' | 'exitNote'>): boolean {
  if (!['failed', 'timed_out', 'stopped'].includes(row.status)) return false;
  return !(row.status === 'failed' && isConventionalResult(row));
}

export function statusLine(row: TaskRow): string {
  const parts = [`Task ${row.id}: ${row.status}`];
  const exit = exitWords(row);
  if (exit) parts.push(exit);
  if (row.signal) parts.push(`signal ${row.signal}`);
  if (row.error) parts.push(`error: ${row.error}`);
  if (row.logNote) parts.push(`log: ${row.logNote}`);
  parts.push(`elapsed ${formatDuration(row.elapsedSeconds)}`);
  return parts.join(', ');
}

/** The line that follows a settled task's status: a warning for a failure, the meaning for a conventional exit. */
export function failureWarning(row: TaskRow): string {
  if (didNotSucceed(row)) return `\nThis task did NOT succeed (${row.status}).`;
  if (row.status === 'failed' && isConventionalResult(row))
    return `\nExit code 1 here is a result (${row.exitNote}), not an error.`;
  return '';
}

/**
 * What the sandbox refused the task, for the model, said outside the output's fence (the paths and
 * hosts come from the task, so each is quoted as a JSON string and cut short). Empty when nothing was.
 */
export function sandboxNote(row: Pick<TaskRow, 'sandboxed' | 'sandboxRefusals'>): string {
  if (!row.sandboxed || row.sandboxRefusals.length === 0) return '';
  // Only path and host characters pass (anything else reads as ?), so the text cannot pose as words to the model.
  const quoted = (text: string) =>
    JSON.stringify((text.length > 200 ? text.slice(0, 200) : text).replace(/[^A-Za-z0-9._/:@+,=~[\]-]/g, '?'));
  const items = row.sandboxRefusals.map((refusal) =>
    refusal.kind === 'host'
      ? `connect to ${quoted(refusal.target)} (${quoted(refusal.detail)})`
      : `write ${quoted(refusal.target)} (${quoted(refusal.detail)})`,
  );
  return (
    `The sandbox refused this task: ${items.join('; ')}. ` +
    'Do not retry the same way: a host can be allowed by the person (they are asked when it is reached), ' +
    'and a command that must write outside the working folder can be run again with sandbox: false, which asks them.\n'
  );
}
