/**
 * `/loop` cadences: an interval the person typed ("5m", "every 2 hours") turned into a five-field
 * cron schedule. Cron counts in whole minutes and in calendar fields, so seconds round up to a
 * minute and a step that does not divide its field evenly (7 minutes, 5 hours) is moved to the
 * closest one that does; the result says what was chosen and why.
 */

export const SECONDS_PER_UNIT = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
export type IntervalUnit = keyof typeof SECONDS_PER_UNIT;

/** Minute steps that divide an hour, hour steps that divide a day. */
const MINUTE_STEPS = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12];
/** Day-of-month steps run up to a month; longer asks for monthly. */
const LONGEST_DAY_STEP = 31;

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

/** "5m", "90s", "2h", "1d", also "5 minutes"; null when it is not an interval. */
export function parseInterval(text: string): { amount: number; unit: IntervalUnit } | null {
  const match = /^(\d{1,6})\s*([a-z]+)$/i.exec(text.trim());
  if (!match) return null;
  const unit = UNIT_WORDS[match[2]!.toLowerCase()];
  const amount = Number(match[1]);
  return unit && amount > 0 ? { amount, unit } : null;
}

function plural(count: number, word: string): string {
  return count === 1 ? `every ${word}` : `every ${count} ${word}s`;
}

function closest(steps: readonly number[], wanted: number): number {
  return steps.reduce((best, step) => (Math.abs(step - wanted) < Math.abs(best - wanted) ? step : best));
}

/**
 * The cron schedule for an interval. `anchor` is when the loop starts: hour and day steps keep its
 * minute (and hour), so "every 2h" started at 13:27 runs at 15:27, 17:27… rather than on the hour.
 */
export function cadenceFor(amount: number, unit: IntervalUnit, anchor: Date): Cadence {
  const asked = amount * SECONDS_PER_UNIT[unit];
  const minutes = Math.max(1, Math.ceil(asked / 60));
  const notes: string[] = [];
  if (asked % 60 !== 0) notes.push(`cron counts whole minutes, so ${amount}${unit} became ${minutes}m`);
  const minute = anchor.getMinutes();
  const hour = anchor.getHours();

  if (minutes < 60) {
    const step = MINUTE_STEPS.includes(minutes) ? minutes : closest(MINUTE_STEPS, minutes);
    if (step !== minutes)
      notes.push(`${minutes} minutes does not divide an hour evenly; the closest that does is ${step}`);
    return done(step === 1 ? '* * * * *' : `*/${step} * * * *`, plural(step, 'minute'), step * 60, notes);
  }
  if (minutes < 24 * 60) {
    const hours = Math.round(minutes / 60);
    if (hours * 60 !== minutes) notes.push(`${minutes} minutes is not a whole number of hours; rounded to ${hours}h`);
    if (hours < 24) {
      const step = HOUR_STEPS.includes(hours) ? hours : closest(HOUR_STEPS, hours);
      if (step !== hours) notes.push(`${hours} hours does not divide a day evenly; the closest that does is ${step}`);
      return done(`${minute} ${step === 1 ? '*' : `*/${step}`} * * *`, plural(step, 'hour'), step * 3600, notes);
    }
  }
  const days = Math.max(1, Math.round(minutes / (24 * 60)));
  if (days * 24 * 60 !== minutes) notes.push(`${minutes} minutes is not a whole number of days; rounded to ${days}d`);
  if (days > LONGEST_DAY_STEP) {
    notes.push(`cron's day steps stop at a month, so ${days} days became once a month`);
    return done(
      `${minute} ${hour} ${anchor.getDate() > 28 ? 28 : anchor.getDate()} * *`,
      'every month',
      30 * 86_400,
      notes,
    );
  }
  const label = days === 1 ? 'every day' : `every ${days} days (counted from the 1st of each month)`;
  return done(`${minute} ${hour} ${days === 1 ? '*' : `*/${days}`} * *`, label, days * 86_400, notes);
}

function done(cron: string, label: string, seconds: number, notes: string[]): Cadence {
  return { cron, label, seconds, normalised: notes.length > 0 ? `${notes.join('; ')}: runs ${label}` : null };
}

/** What a `/loop` line asks for. */
export type LoopRequest =
  | { kind: 'fixed'; amount: number; unit: IntervalUnit; task: string | null }
  | { kind: 'self-paced'; task: string | null };

/**
 * The words after `/loop`: a leading interval ("5m check the deploy"), a trailing "every …"
 * clause ("check the deploy every 2h"), or none (a self-paced loop). No task means the default task.
 */
export function parseLoop(args: string): LoopRequest {
  const text = args.trim();
  const [first, ...rest] = text.split(/\s+/);
  const leading = first ? parseInterval(first) : null;
  if (leading) return { kind: 'fixed', ...leading, task: rest.join(' ').trim() || null };
  const trailing = /^(.*?)[\s,]*\bevery\s+(\d{1,6}\s*[a-z]+|[a-z]+)\s*\.?$/i.exec(text);
  if (trailing) {
    const clause = trailing[2]!;
    const interval = parseInterval(/^\d/.test(clause) ? clause : `1 ${clause}`);
    if (interval) return { kind: 'fixed', ...interval, task: trailing[1]!.trim() || null };
  }
  return { kind: 'self-paced', task: text || null };
}
