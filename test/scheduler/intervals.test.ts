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
    ['45m', '27 * * * *', 'every hour', /45 minutes does not divide an hour evenly; the closest that does is an hour/],
    ['40m', '*/30 * * * *', 'every 30 minutes', /the closest that does is 30/],
    ['50m', '27 * * * *', 'every hour', /the closest that does is an hour/],
    ['2h', '27 1-23/2 * * *', 'every 2 hours', null],
    ['1.5h', '27 1-23/2 * * *', 'every 2 hours', /90 minutes is not a whole number of hours; rounded to 2h/],
    ['1h', '27 * * * *', 'every hour', null],
    ['5h', '27 1-23/6 * * *', 'every 6 hours', /5 hours does not divide a day evenly; the closest that does is 6/],
    ['20h', '27 13 * * *', 'every day', /20 hours does not divide a day evenly; the closest that does is a day/],
    ['90m', '27 1-23/2 * * *', 'every 2 hours', /90 minutes is not a whole number of hours; rounded to 2h/],
    ['1d', '27 13 * * *', 'every day', null],
    ['3d', '27 13 */3 * *', 'every 3 days (counted from the 1st of each month)', null],
    ['7d', '27 13 */7 * *', 'every 7 days (counted from the 1st of each month)', null],
  ])('%s is %s', (text, cron, label, note) => {
    const interval = parseInterval(text)!;
    const cadence = cadenceFor(interval.amount, interval.unit, anchor);
    expect(cadence).toMatchObject({ cron, label });
    if (note) expect(cadence.normalised).toMatch(note);
    else expect(cadence.normalised).toBeNull();
    // Every cadence is a schedule the cron rule takes.
    expect(nextFireTimes(cadence.cron, anchor, 2)).toHaveLength(2);
  });

  it('an hour step keeps the starting hour: a 2-hour loop begun at 13:27 next runs at 15:27', () => {
    const cadence = cadenceFor(2, 'h', anchor);
    expect(nextFireTimes(cadence.cron, anchor, 2).map((date) => date.getHours())).toEqual([15, 17]);
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
    ['5 minutes check the deploy', { kind: 'fixed', amount: 5, unit: 'm', task: 'check the deploy' }],
    ['1.5h check', { kind: 'fixed', amount: 1.5, unit: 'h', task: 'check' }],
    ['0m check', { kind: 'invalid', reason: expect.stringMatching(/"0m" is not an interval/) }],
    ['5x check', { kind: 'invalid', reason: expect.stringMatching(/"5x" is not an interval/) }],
    ['1000000m check', { kind: 'invalid', reason: expect.stringMatching(/not an interval/) }],
    ['30d check', { kind: 'invalid', reason: expect.stringMatching(/30d is longer than a loop lives \(7 days\)/) }],
    ['check it every 1,5h', { kind: 'invalid', reason: expect.stringMatching(/"every 1,5h" is not an interval/) }],
    ['check it every 0m', { kind: 'invalid', reason: expect.stringMatching(/not an interval/) }],
  ])('/loop %j', (args, expected) => {
    expect(parseLoop(args)).toEqual(expected);
  });
});
