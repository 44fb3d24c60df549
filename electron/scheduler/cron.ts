import { Cron } from 'croner';

/**
 * Five-field cron (minute hour day-of-month month day-of-week), the grammar both specs give:
 * `*`, values, steps (`*\/15`, `1-30/5`), ranges and comma lists; no names (MON, JAN), no `@daily`
 * aliases, no `L W # ? +` extensions. croner does the calendar arithmetic (its grammar is wider, so
 * Drover checks each field first and names what it refuses); it reads day-of-month and day-of-week
 * with Vixie cron's OR when both are restricted, and handles daylight-saving changes as Vixie does:
 * a job at a fixed time that falls in a skipped hour runs once at the first valid time after it,
 * and once in a repeated hour; a job with `*` in its minute or hour keeps its own rhythm.
 */

interface Field {
  name: string;
  min: number;
  max: number;
  hint?: string;
}

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, hint: 'months are numbers 1-12' },
  { name: 'day-of-week', min: 0, max: 7, hint: 'days are numbers 0-7, 0 and 7 being Sunday' },
];

/** A cron expression Drover refuses, naming the field and what in it. */
export class CronError extends Error {
  constructor(
    message: string,
    readonly field: string | null,
  ) {
    super(message);
    this.name = 'CronError';
  }
}

/** One comma-separated part of a field: `*`, `N`, `N-M`, each optionally `/STEP` (not after a lone number). */
const PART = /^(?:(\*)|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/;

/** Checks an expression against Drover's grammar; answers it with spacing normalised, or throws a CronError. */
export function checkCron(expression: string): string {
  const text = expression.trim();
  if (text === '') throw new CronError('the cron expression is empty', null);
  if (text.startsWith('@'))
    throw new CronError(`"${text.split(/\s/)[0]}" is an alias; write the five fields instead (as "0 0 * * *")`, null);
  const fields = text.split(/\s+/);
  if (fields.length !== 5)
    throw new CronError(
      `a cron expression has five fields (minute hour day-of-month month day-of-week); this one has ${fields.length}`,
      null,
    );
  fields.forEach((value, index) => checkField(value, FIELDS[index]!));
  return fields.join(' ');
}

function checkField(value: string, field: Field): void {
  const refuse = (why: string): never => {
    throw new CronError(`the ${field.name} field "${value}" ${why}`, field.name);
  };
  const name = /[a-z]{2,}/i.exec(value);
  if (name) refuse(`holds the name "${name[0]}": names are not supported; ${field.hint ?? 'use numbers'}`);
  const extension = /[a-z#?+]/i.exec(value);
  if (extension) refuse(`uses "${extension[0]}", an extension Drover's cron does not support`);
  for (const part of value.split(',')) {
    const match = PART.exec(part);
    if (!match) refuse(`has "${part}", which is not *, a number, a range (1-5) or a step (*/15 or 1-30/5)`);
    const [, star, low, high, step] = match!;
    if (step !== undefined) {
      if (!star && high === undefined) refuse(`has "${part}": a step follows * or a range, not a single number`);
      if (Number(step) === 0) refuse(`has a step of 0`);
    }
    if (star) continue;
    for (const number of [low, high]) {
      if (number === undefined) continue;
      const n = Number(number);
      if (n < field.min || n > field.max) refuse(`has ${n}, outside ${field.min}-${field.max}`);
    }
    if (high !== undefined && Number(high) < Number(low)) refuse(`has the range ${low}-${high}, which runs backwards`);
  }
}

/** The schedule, ready to step through time. */
export function compileCron(expression: string, timeZone?: string): Cron {
  const checked = checkCron(expression);
  try {
    return new Cron(checked, {
      mode: '5-part',
      domAndDow: false,
      fixedTimeRule: 'no-wildcard',
      ...(timeZone ? { timezone: timeZone } : {}),
    });
  } catch (error) {
    throw new CronError(`the cron expression "${checked}" cannot be used: ${(error as Error).message}`, null);
  }
}

/**
 * The next `count` times the expression fires strictly after `from`, in `timeZone` (the machine's
 * local zone when not given). Throws a CronError naming the bad field, or saying it never fires.
 */
export function nextFireTimes(expression: string, from: Date, count: number, timeZone?: string): Date[] {
  const times = compileCron(expression, timeZone).nextRuns(count, from);
  if (times.length === 0 && count > 0)
    throw new CronError(`the cron expression "${expression.trim()}" never fires (no such date)`, null);
  return times;
}
