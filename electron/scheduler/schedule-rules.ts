import type { SchedulePatch, StoredSchedule } from './schedule-store.js';
import { nextCronTime } from './timing.js';

/**
 * The scheduler's rules as pure functions of a schedule and the time: what follows a run, and what
 * a restart makes of a schedule. No store, no clock of their own.
 */

/** A run past the lifetime becomes the final run, at the expiry. */
export function capped(at: number, expiresAt: number | null): { at: number; final: boolean } {
  return expiresAt !== null && at >= expiresAt ? { at: expiresAt, final: true } : { at, final: false };
}

/**
 * The next run of a recurring schedule after one at `now`: the first cron time after both the one
 * it stood for and now, so a late run never brings a missed one back, and a run that was no cron
 * time (a loop's first pass, Run now, a resume) is not followed by one moments later. A
 * self-paced loop has no cron: its next check is now.
 */
export function nextAfter(schedule: StoredSchedule, now: number, timeZone?: string): number {
  if (schedule.cron === null) return now;
  const stoodFor = (schedule.nextFireAt ?? now) - schedule.jitterMs;
  const base = nextCronTime(schedule.cron, Math.max(stoodFor, now), timeZone);
  return (base ?? Number.MAX_SAFE_INTEGER) + schedule.jitterMs;
}

/** The schedule's state once a run is claimed: its next run, or gone. */
export function afterRun(schedule: StoredSchedule, now: number, timeZone?: string): SchedulePatch | 'delete' {
  const ran: SchedulePatch = { lastFiredAt: now, fireCount: schedule.fireCount + 1, lastResult: 'running' };
  if (schedule.kind === 'self_paced') {
    // The pass chooses its next check (loop_next) or ends the loop (loop_stop).
    return { ...ran, nextFireAt: null, nextReason: null };
  }
  if (!schedule.recurring || schedule.finalFire) return 'delete';
  // Past its lifetime already (it waited for a turn or the person): this run was the final one.
  if (schedule.expiresAt !== null && now >= schedule.expiresAt) return 'delete';
  const next = capped(nextAfter(schedule, now, timeZone), schedule.expiresAt);
  return { ...ran, nextFireAt: next.at, finalFire: next.final };
}

/**
 * What a restart makes of a schedule (its session still there): past its lifetime it goes; a
 * missed one-off goes, or (durable) waits for the person; a missed recurring one waits for its next
 * time, or (durable) runs once now; a self-paced loop closed mid-pass gets its safety check now.
 */
export function takeUp(schedule: StoredSchedule, now: number, timeZone?: string): 'kept' | 'delete' | SchedulePatch {
  if (schedule.recurring && schedule.expiresAt !== null && schedule.expiresAt <= now) return 'delete';
  if (schedule.kind === 'self_paced' && schedule.nextFireAt === null) return { nextFireAt: now, safetyCheck: true };
  if (schedule.nextFireAt === null || schedule.nextFireAt >= now) return 'kept';
  if (!schedule.recurring) return schedule.durable ? { needsConfirmation: true } : 'delete';
  return { nextFireAt: schedule.durable ? now : nextAfter(schedule, now, timeZone) };
}

export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export function describeSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes < 60) return rest ? `${minutes}m ${rest}s` : `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours}h ${minutes % 60}m` : `${hours}h`;
}

/** A time as the person reads it, in the schedule's zone: "Mon 10 Jun, 14:30". */
export function formatLocal(ms: number, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(ms));
}
