import { describe, expect, it } from 'vitest';
import { cadenceFor, parseInterval, parseLoop } from '../../electron/scheduler/intervals.js';
import { nextFireTimes } from '../../electron/scheduler/cron.js';

const anchor = new Date(2026, 5, 10, 13, 27, 0);

describe('/loop cadences', () => {
  it.each([
    ['5m', '*/5 * * * *', 'every 5 minutes', null],
    ['1m', '* * * * *', 'every minute', null],
    ['30s', '* * * * *', 'every minute', /whole minutes, so 30s became 1m/],
    ['90s', '*/2 * * * *', 'every 2 minutes', /90s became 2m/],
    ['7m', '*/6 * * * *', 'every 6 minutes', /7 minutes does not divide an hour evenly; the closest that does is 6/],
    ['45m', '*/30 * * * *', 'every 30 minutes', /closest that does is 30/],
    ['2h', '27 */2 * * *', 'every 2 hours', null],
    ['1h', '27 * * * *', 'every hour', null],
    ['5h', '27 */4 * * *', 'every 4 hours', /5 hours does not divide a day evenly; the closest that does is 4/],
    ['90m', '27 */2 * * *', 'every 2 hours', /90 minutes is not a whole number of hours; rounded to 2h/],
    ['1d', '27 13 * * *', 'every day', null],
    ['3d', '27 13 */3 * *', 'every 3 days (counted from the 1st of each month)', null],
    ['40d', '27 13 10 * *', 'every month', /day steps stop at a month/],
  ])('%s is %s', (text, cron, label, note) => {
    const interval = parseInterval(text)!;
    const cadence = cadenceFor(interval.amount, interval.unit, anchor);
    expect(cadence).toMatchObject({ cron, label });
    if (note) expect(cadence.normalised).toMatch(note);
    else expect(cadence.normalised).toBeNull();
    // Every cadence is a schedule the cron rule takes.
    expect(nextFireTimes(cadence.cron, anchor, 2)).toHaveLength(2);
  });

  it('a multi-day step follows the calendar: it starts again on the 1st', () => {
    const times = nextFireTimes('27 13 */3 * *', new Date(2026, 0, 27, 0, 0), 3).map((date) => date.getDate());
    expect(times).toEqual([28, 31, 1]);
  });

  it.each([
    ['5m check the deploy', { kind: 'fixed', amount: 5, unit: 'm', task: 'check the deploy' }],
    ['check the deploy every 2h', { kind: 'fixed', amount: 2, unit: 'h', task: 'check the deploy' }],
    ['check the deploy every 2 hours.', { kind: 'fixed', amount: 2, unit: 'h', task: 'check the deploy' }],
    ['check the deploy, every hour', { kind: 'fixed', amount: 1, unit: 'h', task: 'check the deploy' }],
    ['10m', { kind: 'fixed', amount: 10, unit: 'm', task: null }],
    ['check the deploy', { kind: 'self-paced', task: 'check the deploy' }],
    ['', { kind: 'self-paced', task: null }],
    ['every morning check mail', { kind: 'self-paced', task: 'every morning check mail' }],
    ['0m check', { kind: 'self-paced', task: '0m check' }],
  ])('/loop %j', (args, expected) => {
    expect(parseLoop(args)).toEqual(expected);
  });
});
