// A task row's times are written by isoTime, arithmetic in place of Date#toISOString (a call into
// V8's runtime that cost a first open of a 10,000-task session about 40 ms): the same text for
// every millisecond a record can hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../electron/core/iso-time.js';

const builtIn = (ms: number) => new Date(ms).toISOString();

describe('isoTime', () => {
  it('writes what toISOString writes, for any moment from year 0 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        expect(isoTime(ms)).toBe(builtIn(ms));
      }),
      { numRuns: 20_000 },
    );
  });

  it('gets the edges right: day, month, year and leap-day boundaries, the epoch, and the range ends', () => {
    const moments = [
      0,
      -1,
      1,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(1900, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2025, 0, 1),
      Date.UTC(2026, 11, 2, 3, 4, 5, 6),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      -62_167_219_200_000,
      253_402_300_799_999,
    ];
    for (const ms of moments) expect(isoTime(ms), String(ms)).toBe(builtIn(ms));
    // Every day of four years around a leap year, at a time with every field non-zero.
    for (let day = 0; day < 4 * 366; day++) {
      const ms = Date.UTC(2023, 0, 1, 13, 14, 15, 16) + day * 86_400_000;
      expect(isoTime(ms)).toBe(builtIn(ms));
    }
  });

  it('leaves years beyond four digits, fractions of a millisecond and invalid times to the built-in', () => {
    for (const ms of [-62_167_219_200_001, 253_402_300_800_000, 8.64e15, 1.5, 1_700_000_000_000.25])
      expect(isoTime(ms)).toBe(builtIn(ms));
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
