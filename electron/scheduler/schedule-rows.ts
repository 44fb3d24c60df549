import { DroverError } from '../../shared/ipc/errors.js';
import { LOOP_SAFETY_CHECK_MS, RECURRING_LIFETIME_MS } from '../../shared/schemas/schedule.js';
import { CronError, checkCron } from './cron.js';
import { cadenceFor, type LoopRequest } from './intervals.js';
import type { NewSchedule, SchedulePatch, StoredSchedule } from './schedule-store.js';
import { capped, formatLocal, oneLine } from './schedule-rules.js';
import { cronIntervalMs, earlyOffsetMs, lateOffsetMs, nextCronTime } from './timing.js';

/** What cron_create asks for. */
export interface CronRequest {
  cron: string;
  prompt: string;
  recurring: boolean;
  durable: boolean;
}

/**
 * cron_create's schedule: the cron checked first (the error names the field), its first run never
 * before it was made, a first match beyond the lifetime being the final run at the expiry. A
 * durable one outlives the conversation, so it waits, paused, until the person turns it on.
 */
export function cronRow(
  id: string,
  sessionId: string,
  input: CronRequest,
  now: number,
  timeZone?: string,
): NewSchedule {
  let cron: string;
  try {
    cron = checkCron(input.cron);
  } catch (error) {
    if (error instanceof CronError) throw new DroverError('invalid_input', error.message, { path: 'cron' });
    throw error;
  }
  const base = nextCronTime(cron, now, timeZone);
  if (base === null)
    throw new DroverError('invalid_input', `the cron expression "${cron}" never fires`, { path: 'cron' });
  const jitterMs = input.recurring
    ? lateOffsetMs(id, cronIntervalMs(cron, now, timeZone))
    : -earlyOffsetMs(id, new Date(base), timeZone);
  const expiresAt = input.recurring ? now + RECURRING_LIFETIME_MS : null;
  const first = capped(Math.max(now, base + jitterMs), expiresAt);
  return {
    id,
    sessionId: input.durable ? null : sessionId,
    kind: 'cron',
    cron,
    prompt: input.prompt,
    label: input.recurring ? `cron ${cron}` : `once, ${cron}`,
    recurring: input.recurring,
    durable: input.durable,
    createdAt: now,
    expiresAt,
    nextFireAt: first.at,
    jitterMs,
    finalFire: first.final,
    ...(input.durable ? { runSessionId: sessionId, paused: true } : {}),
  };
}

/**
 * `/loop …`'s schedule, due at once (its first pass runs now), and the confirmation the transcript
 * shows, given the self-paced loops it replaces.
 */
export function loopRow(
  id: string,
  sessionId: string,
  request: Exclude<LoopRequest, { kind: 'invalid' }>,
  now: number,
  timeZone?: string,
): { row: NewSchedule; confirmation: (replaced: readonly string[]) => string } {
  const expiresAt = now + RECURRING_LIFETIME_MS;
  const what = request.task ? `"${oneLine(request.task)}"` : 'the default task (loop.md)';
  const common = { id, sessionId, prompt: request.task ?? '', recurring: true, durable: false, createdAt: now };
  if (request.kind === 'self-paced')
    return {
      row: {
        ...common,
        kind: 'self_paced',
        cron: null,
        label: 'self-paced',
        expiresAt,
        nextFireAt: now,
        jitterMs: 0,
        finalFire: false,
      },
      confirmation: (replaced) =>
        `Self-paced loop ${id} started for ${what}: the first pass runs now, and each pass picks when the next one runs ` +
        `(1 minute to 1 hour). It ends within 7 days, when a pass stops it, or with Esc.` +
        (replaced.length > 0 ? ` It replaces the self-paced loop ${replaced.join(', ')}.` : ''),
    };
  const cadence = cadenceFor(request.amount, request.unit, new Date(now));
  return {
    row: {
      ...common,
      kind: 'loop',
      cron: cadence.cron,
      label: cadence.label,
      expiresAt,
      nextFireAt: now,
      jitterMs: lateOffsetMs(id, cadence.seconds * 1000),
      finalFire: false,
    },
    confirmation: () =>
      `Loop ${id} runs ${what} ${cadence.label} (cron ${cadence.cron})` +
      (cadence.normalised ? `; ${cadence.normalised}` : '') +
      `. The first pass runs now; it ends ${formatLocal(expiresAt, timeZone)} after one final pass. Esc stops it.`,
  };
}

/**
 * A self-paced pass ended without choosing its next check: one safety check in 20 minutes; a
 * second such pass (or no room left in the lifetime) ends the loop. Says what the person is told.
 */
export function afterPass(
  loop: StoredSchedule,
  now: number,
): { change: SchedulePatch | 'delete'; note: string | null } {
  if (loop.safetyCheck)
    return {
      change: 'delete',
      note: `Self-paced loop ${loop.id} ended: two passes in a row chose no next check (loop_next) and did not stop it.`,
    };
  const at = now + LOOP_SAFETY_CHECK_MS;
  if (loop.expiresAt !== null && at >= loop.expiresAt) return { change: 'delete', note: null };
  return {
    change: { nextFireAt: at, safetyCheck: true, nextReason: 'a safety check: the last pass chose no next check' },
    note: `Self-paced loop ${loop.id}: the last pass chose no next check, so one safety check runs in 20 minutes; if that pass chooses none either, the loop ends.`,
  };
}
