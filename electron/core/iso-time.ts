/**
 * `new Date(ms).toISOString()`, computed with arithmetic. The built-in is a call into V8's runtime
 * that took about 1.3 µs a call here (Node 20), and a row of a task carries up to six times: a
 * session of 10,000 tasks spent some 40 ms in it on its first open. This takes a quarter of that.
 * Years outside 0000–9999 (which toISOString writes with a sign and six digits) go to the built-in.
 */
export function isoTime(ms: number): string {
  if (!(ms >= MIN_MS && ms <= MAX_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  // The proleptic Gregorian date of a day number (days since 1970-01-01), in eras of 400 years.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(millis, 3)}Z`;
}

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const MIN_MS = -62_167_219_200_000;
const MAX_MS = 253_402_300_799_999;

function pad(value: number, width: number): string {
  const text = String(value);
  return text.length >= width ? text : '0'.repeat(width - text.length) + text;
}
