import type { TaskRow } from '../../shared/schemas/task.js';

/** The answer a foreground run gives when it is handed to the background: the notice leads, output follows. */
export function adoptionNotice(row: TaskRow, waitedMs: number, follow: { read: string; stop: string }): string {
  return [
    `Command still running after ${formatDuration(waitedMs / 1000)}. It was NOT cancelled: it now runs as background task ${row.id} (hard timeout ${formatDuration(row.timeoutSeconds)}).`,
    `Follow it with ${follow.read}, or end it with ${follow.stop}.`,
    'Do NOT run this command again: it is already running, and a second copy would fight the first for the same ports, locks and files.',
  ].join('\n');
}

/** The answer when nothing could take the run over, so it was ended. */
export function refusedAdoptionNotice(row: TaskRow, reason: string, backgroundHint: string): string {
  return `Command was still running and could not be moved to the background (${reason}), so it was stopped. ${backgroundHint}`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${Number.isInteger(hours) ? hours : hours.toFixed(1)} h`;
}
