/**
 * `/loop` cadences: an interval the person typed ("5m", "every 2 hours") turned into a five-field
 * cron schedule. Cron counts in whole minutes and in calendar fields, so seconds round up to a
 * minute and a step that does not divide its field evenly (7 minutes, 5 hours) is moved to the
 * closest one that does; the result says what was chosen and why.
 */

export const SECONDS_PER_UNIT = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
export type IntervalUnit = keyof typeof SECONDS_PER_UNIT;

/** Minute steps that divide an hour, hour steps that divide a day (60 and 24 move up a unit). */
const MINUTE_STEPS = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60];
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12, 24];

export interface Cadence {
  /** The five-field schedule. */
  cron: string;
  /** What it runs at, in words ("every 5 minutes"). */
  label: string;
  /** The interval the schedule keeps, in seconds (for jitter: at most a tenth of it). */
  seconds: number;
  /** Set when the interval asked for was changed, saying to what and why. */
  normalised: string | null;
}

const UNIT_WORDS: Record<string, IntervalUnit> = {
  s: 's',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  m: 'm',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  h: 'h',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  d: 'd',
  day: 'd',
  days: 'd',
};

/** "5m", "90s", "1.5h", "2h", "1d", also "5 minutes"; null when it is not an interval. */
export function parseInterval(text: string): { amount: number; unit: IntervalUnit } | null {
  const match = /^(\d{1,6}(?:\.\d{1,3})?)\s*([a-z]+)$/i.exec(text.trim());
  if (!match) return null;
  const unit = UNIT_WORDS[match[2]!.toLowerCase()];
  const amount = Number(match[1]);
  return unit && amount > 0 ? { amount, unit } : null;
}

/** Words that start like an interval ("0m", "1,5h", "5x"), so a typo is refused rather than taken as the task. */
function looksLikeInterval(text: string): boolean {
  return /^\d/.test(text.trim());
}

/** A loop lives 7 days: an interval longer than that would never come round. */
export const LONGEST_INTERVAL_SECONDS = 7 * 86_400;

function plural(count: number, word: string): string {
  return count === 1 ? `every ${word}` : `every ${count} ${word}s`;
}

/** The step closest to `wanted`; on a tie, the longer one (fewer model calls). */
function closest(steps: readonly number[], wanted: number): number {
  return steps.reduce((best, step) => (Math.abs(step - wanted) <= Math.abs(best - wanted) ? step : best));
}

/**
 * The cron schedule for an interval. `anchor` is when the loop starts: hour and day steps keep its
 * minute (and hour), so "every 2h" started at 13:27 runs at 15:27, 17:27… rather than on the hour.
 */
export function cadenceFor(amount: number, unit: IntervalUnit, anchor: Date): Cadence {
  const asked = amount * SECONDS_PER_UNIT[unit];
  let minutes = Math.max(1, Math.ceil(asked / 60));
  const notes: string[] = [];
  if (asked % 60 !== 0) notes.push(`cron counts whole minutes, so ${amount}${unit} became ${minutes}m`);
  const minute = anchor.getMinutes();
  const hour = anchor.getHours();

  if (minutes < 60) {
    const step = closest(MINUTE_STEPS, minutes);
    if (step !== minutes)
      notes.push(
        `${minutes} minutes does not divide an hour evenly; the closest that does is ${step === 60 ? 'an hour' : step}`,
      );
    if (step < 60)
      return done(step === 1 ? '* * * * *' : `*/${step} * * * *`, plural(step, 'minute'), step * 60, notes);
    minutes = 60;
  }
  if (minutes < 24 * 60) {
    const hours = Math.round(minutes / 60);
    if (hours * 60 !== minutes) notes.push(`${minutes} minutes is not a whole number of hours; rounded to ${hours}h`);
    const step = closest(HOUR_STEPS, hours);
    if (step !== hours)
      notes.push(
        `${hours} hours does not divide a day evenly; the closest that does is ${step === 24 ? 'a day' : step}`,
      );
    // From the starting hour: a 2-hour loop begun at 13:27 runs at 15:27, not 14:27.
    if (step < 24)
      return done(
        `${minute} ${step === 1 ? '*' : `${hour % step}-23/${step}`} * * *`,
        plural(step, 'hour'),
        step * 3600,
        notes,
      );
    minutes = 24 * 60;
  }
  const days = Math.max(1, Math.round(minutes / (24 * 60)));
  if (days * 24 * 60 !== minutes) notes.push(`${minutes} minutes is not a whole number of days; rounded to ${days}d`);
  const label = days === 1 ? 'every day' : `every ${days} days (counted from the 1st of each month)`;
  return done(`${minute} ${hour} ${days === 1 ? '*' : `*/${days}`} * *`, label, days * 86_400, notes);
}

function done(cron: string, label: string, seconds: number, notes: string[]): Cadence {
  return { cron, label, seconds, normalised: notes.length > 0 ? `${notes.join('; ')}: runs ${label}` : null };
}

/** What a `/loop` line asks for, or why it cannot be read. */
export type LoopRequest =
  | { kind: 'fixed'; amount: number; unit: IntervalUnit; task: string | null }
  | { kind: 'self-paced'; task: string | null }
  | { kind: 'invalid'; reason: string };

const USAGE = 'write it as 5m, 2h or 1d (s, m, h or d), as in "/loop 5m check the deploy"';

function fixed(interval: { amount: number; unit: IntervalUnit }, task: string): LoopRequest {
  if (interval.amount * SECONDS_PER_UNIT[interval.unit] > LONGEST_INTERVAL_SECONDS)
    return {
      kind: 'invalid',
      reason: `${interval.amount}${interval.unit} is longer than a loop lives (7 days); use a reminder (ask the agent) or a shorter interval`,
    };
  return { kind: 'fixed', ...interval, task: task.trim() || null };
}

/**
 * The words after `/loop`: a leading interval ("5m check the deploy", "5 minutes check"), a trailing
 * "every …" clause ("check the deploy every 2h"), or none (a self-paced loop). No task means the
 * default task. Words that start like an interval but are not one ("0m", "5x") are refused, never
 * taken as the task of a self-paced loop.
 */
export function parseLoop(args: string): LoopRequest {
  const text = args.trim();
  const words = text.split(/\s+/);
  const [first = '', second = ''] = words;
  const leading = parseInterval(first) ?? (/^\d+(\.\d+)?$/.test(first) ? parseInterval(`${first} ${second}`) : null);
  if (leading) return fixed(leading, words.slice(parseInterval(first) ? 1 : 2).join(' '));
  if (looksLikeInterval(first)) return { kind: 'invalid', reason: `"${first}" is not an interval: ${USAGE}` };
  const trailing = /^(.*?)[\s,]*\bevery\s+(\S+(?:\s+[a-z]+)?)\s*\.?$/i.exec(text);
  if (trailing) {
    const clause = trailing[2]!;
    const interval = parseInterval(/^\d/.test(clause) ? clause : `1 ${clause}`);
    if (interval) return fixed(interval, trailing[1]!);
    if (looksLikeInterval(clause)) return { kind: 'invalid', reason: `"every ${clause}" is not an interval: ${USAGE}` };
  }
  return { kind: 'self-paced', task: text || null };
}
