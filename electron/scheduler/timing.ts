import { compileCron } from './cron.js';

/**
 * When a schedule runs: the cron time, moved by an offset derived from the schedule's id, so it
 * stays the same after a restart. Recurring schedules run up to a tenth of their interval late
 * (at most 15 minutes), spreading many schedules' model calls; a one-shot set for :00 or :30 (the
 * minutes everyone picks) runs up to 90 s early. Self-paced loops use the delay they chose, as is.
 */
export const MAX_LATE_MS = 15 * 60 * 1000;
export const LATE_SHARE = 0.1;
export const MAX_EARLY_MS = 90 * 1000;

/** A number in [0, 1) that only the id decides (FNV-1a). */
export function idFraction(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32;
}

/** How late a recurring schedule with this interval runs, always the same for one id. */
export function lateOffsetMs(id: string, intervalMs: number): number {
  return Math.floor(idFraction(id) * Math.min(intervalMs * LATE_SHARE, MAX_LATE_MS));
}

/** How early a one-shot runs: only when it is set for minute 0 or 30 of its hour (local time). */
export function earlyOffsetMs(id: string, fireAt: Date, timeZone?: string): number {
  const minute = timeZone
    ? Number(new Intl.DateTimeFormat('en-US', { timeZone, minute: 'numeric' }).format(fireAt))
    : fireAt.getMinutes();
  return minute === 0 || minute === 30 ? Math.floor(idFraction(id) * MAX_EARLY_MS) : 0;
}

/** The cron time after `from` (strictly), or null when there is none. */
export function nextCronTime(cron: string, from: number, timeZone?: string): number | null {
  return compileCron(cron, timeZone).nextRun(new Date(from))?.getTime() ?? null;
}

/** The gap between the next two runs after `from`: the interval a recurring schedule keeps. */
export function cronIntervalMs(cron: string, from: number, timeZone?: string): number {
  const [first, second] = compileCron(cron, timeZone).nextRuns(2, new Date(from));
  return first && second ? second.getTime() - first.getTime() : 0;
}
