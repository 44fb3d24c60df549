import { describe, expect, it } from 'vitest';
import { warmsInWorker } from './intl-warm.js';

describe('where the locale data is warmed', () => {
  it('uses a worker only where cores are to spare', () => {
    expect(warmsInWorker(1)).toBe(false);
    expect(warmsInWorker(2)).toBe(false);
    expect(warmsInWorker(3)).toBe(true);
    expect(warmsInWorker(16)).toBe(true);
  });

  it('stays on the main thread where the browser does not say how many cores there are', () => {
    expect(warmsInWorker(undefined)).toBe(false);
  });
});
