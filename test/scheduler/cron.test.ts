import { describe, expect, it } from 'vitest';
import { checkCron, CronError, nextFireTimes } from '../../electron/scheduler/cron.js';

const NEW_YORK = 'America/New_York';

/** Next fire times as New York wall-clock strings, with the UTC offset so a repeated hour shows. */
function fires(expression: string, fromIso: string, count: number): string[] {
  return nextFireTimes(expression, new Date(fromIso), count, NEW_YORK).map((date) => {
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: NEW_YORK,
      dateStyle: 'short',
      timeStyle: 'short',
      hourCycle: 'h23',
    }).format(date);
    const offset = new Intl.DateTimeFormat('en-US', { timeZone: NEW_YORK, timeZoneName: 'shortOffset' })
      .formatToParts(date)
      .find((part) => part.type === 'timeZoneName')!.value;
    return `${local} ${offset}`;
  });
}

describe('nextFireTimes: the table (America/New_York)', () => {
  it.each([
    [
      'steps',
      '*/15 * * * *',
      '2026-06-10T14:07:00Z',
      ['2026-06-10 10:15 GMT-4', '2026-06-10 10:30 GMT-4', '2026-06-10 10:45 GMT-4', '2026-06-10 11:00 GMT-4'],
    ],
    ['every minute', '* * * * *', '2026-06-10T14:07:30Z', ['2026-06-10 10:08 GMT-4', '2026-06-10 10:09 GMT-4']],
    [
      'a stepped range',
      '0 9-17/4 * * *',
      '2026-06-10T12:00:00Z',
      ['2026-06-10 09:00 GMT-4', '2026-06-10 13:00 GMT-4', '2026-06-10 17:00 GMT-4', '2026-06-11 09:00 GMT-4'],
    ],
    ['a range', '30 8 * * 1-5', '2026-06-12T13:00:00Z', ['2026-06-15 08:30 GMT-4', '2026-06-16 08:30 GMT-4']],
    [
      'a list',
      '0 0 1,15 * *',
      '2026-06-10T12:00:00Z',
      ['2026-06-15 00:00 GMT-4', '2026-07-01 00:00 GMT-4', '2026-07-15 00:00 GMT-4'],
    ],
    [
      'a list of ranges and steps',
      '0,30 6-7,22 * * *',
      '2026-06-10T12:00:00Z',
      [
        '2026-06-10 22:00 GMT-4',
        '2026-06-10 22:30 GMT-4',
        '2026-06-11 06:00 GMT-4',
        '2026-06-11 06:30 GMT-4',
        '2026-06-11 07:00 GMT-4',
      ],
    ],
    // Both day fields restricted: either matches (Vixie's OR), Fridays and the 13th.
    [
      'day-of-month OR day-of-week',
      '0 12 13 * 5',
      '2026-02-01T12:00:00Z',
      [
        '2026-02-06 12:00 GMT-5',
        '2026-02-13 12:00 GMT-5',
        '2026-02-20 12:00 GMT-5',
        '2026-02-27 12:00 GMT-5',
        '2026-03-06 12:00 GMT-5',
        '2026-03-13 12:00 GMT-4',
      ],
    ],
    ['day-of-week alone', '0 0 * * 0', '2026-06-10T12:00:00Z', ['2026-06-14 00:00 GMT-4', '2026-06-21 00:00 GMT-4']],
    ['Sunday as 7', '0 0 * * 7', '2026-06-10T12:00:00Z', ['2026-06-14 00:00 GMT-4', '2026-06-21 00:00 GMT-4']],
    [
      'month ends: the 31st skips the short months',
      '0 0 31 * *',
      '2026-01-01T12:00:00Z',
      ['2026-01-31 00:00 GMT-5', '2026-03-31 00:00 GMT-4', '2026-05-31 00:00 GMT-4', '2026-07-31 00:00 GMT-4'],
    ],
    ['leap days', '0 0 29 2 *', '2026-01-01T12:00:00Z', ['2028-02-29 00:00 GMT-5', '2032-02-29 00:00 GMT-5']],
    ['a month and a day', '15 10 1 1 *', '2026-06-10T12:00:00Z', ['2027-01-01 10:15 GMT-5', '2028-01-01 10:15 GMT-5']],
    // 2026-03-08: 02:00 EST jumps to 03:00 EDT. A fixed-time job in the gap runs once, at 03:00.
    [
      'spring forward: a skipped fixed time runs once at the next valid time',
      '30 2 * * *',
      '2026-03-07T12:00:00Z',
      ['2026-03-08 03:00 GMT-4', '2026-03-09 02:30 GMT-4', '2026-03-10 02:30 GMT-4'],
    ],
    [
      'spring forward: an interval job keeps its rhythm past the gap',
      '*/30 * * * *',
      '2026-03-08T06:10:00Z',
      ['2026-03-08 01:30 GMT-5', '2026-03-08 03:00 GMT-4', '2026-03-08 03:30 GMT-4'],
    ],
    // 2026-11-01: 02:00 EDT falls back to 01:00 EST. A fixed time in the repeated hour runs once.
    [
      'fall back: a repeated fixed time runs once',
      '30 1 * * *',
      '2026-10-31T12:00:00Z',
      ['2026-11-01 01:30 GMT-4', '2026-11-02 01:30 GMT-5', '2026-11-03 01:30 GMT-5'],
    ],
    [
      'fall back: a fixed list in the repeated hour runs once each',
      '0,30 1 * * *',
      '2026-11-01T04:10:00Z',
      ['2026-11-01 01:00 GMT-4', '2026-11-01 01:30 GMT-4', '2026-11-02 01:00 GMT-5'],
    ],
  ])('%s: %s', (_what, expression, from, expected) => {
    expect(fires(expression, from, expected.length)).toEqual(expected);
  });

  it('answers times strictly after `from`, in the machine’s zone when none is named', () => {
    const from = new Date(2026, 5, 10, 10, 15, 0);
    const [next] = nextFireTimes('*/15 * * * *', from, 1);
    expect(next!.getTime()).toBe(new Date(2026, 5, 10, 10, 30, 0).getTime());
  });
});

describe('nextFireTimes: what it refuses, naming the field', () => {
  it.each([
    ['', /empty/, null],
    ['@daily', /"@daily" is an alias/, null],
    ['@reboot', /alias/, null],
    ['* * * *', /five fields .* has 4/, null],
    ['0 * * * * *', /five fields .* has 6/, null],
    ['0 0 * * MON', /day-of-week field "MON" holds the name "MON"/, 'day-of-week'],
    ['0 0 * JAN *', /month field "JAN" holds the name "JAN"/, 'month'],
    ['0 0 * * mon-fri', /day-of-week field .*names are not supported/, 'day-of-week'],
    ['0 0 L * *', /day-of-month field "L" uses "L"/, 'day-of-month'],
    ['0 0 15W * *', /day-of-month field "15W" uses "W"/, 'day-of-month'],
    ['0 0 * * 5#2', /day-of-week field "5#2" uses "#"/, 'day-of-week'],
    ['0 0 ? * *', /day-of-month field "\?" uses "\?"/, 'day-of-month'],
    ['0 0 * * +1', /uses "\+"/, 'day-of-week'],
    ['60 * * * *', /minute field "60" has 60, outside 0-59/, 'minute'],
    ['* 24 * * *', /hour field "24" has 24, outside 0-23/, 'hour'],
    ['0 0 0 * *', /day-of-month field "0" has 0, outside 1-31/, 'day-of-month'],
    ['0 0 * 13 *', /month field "13" has 13, outside 1-12/, 'month'],
    ['0 0 * * 8', /day-of-week field "8" has 8, outside 0-7/, 'day-of-week'],
    ['5-1 * * * *', /minute field "5-1" has the range 5-1, which runs backwards/, 'minute'],
    ['*/0 * * * *', /minute field "\*\/0" has a step of 0/, 'minute'],
    ['5/15 * * * *', /a step follows \* or a range/, 'minute'],
    ['1,,2 * * * *', /minute field "1,,2" has ""/, 'minute'],
    ['0 0 30 2 *', /never fires/, null],
  ])('%j', (expression, message, field) => {
    let caught: unknown;
    try {
      nextFireTimes(expression, new Date('2026-06-10T12:00:00Z'), 3, NEW_YORK);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CronError);
    expect((caught as CronError).message).toMatch(message);
    expect((caught as CronError).field).toBe(field);
  });

  it('normalises spacing', () => {
    expect(checkCron('  */5   *  * * 1-5 ')).toBe('*/5 * * * 1-5');
  });
});
