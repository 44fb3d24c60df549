import { describe, expect, it } from 'vitest';
import { boundsOf, problemWith, TUNABLES, valueLabel } from './tunables.js';

const tunable = (id: string) => TUNABLES.find((entry) => entry.id === id)!;

describe('the Background tasks figures', () => {
  it('reads each bound from the schema of settings.json', () => {
    expect(boundsOf('background.maxConcurrent')).toEqual({ min: 1, max: 64, whole: true });
    expect(boundsOf('background.stopGraceSeconds')).toEqual({ min: 0, max: 300, whole: false });
    expect(boundsOf('background.enabled')).toBeNull();
  });

  it('refuses a typed figure naming the field and its bounds, and takes a good one', () => {
    const cap = tunable('background.maxConcurrent');
    expect(problemWith(cap, '0')).toEqual({
      problem:
        'Running at once in a session, at most (background.maxConcurrent) must be a whole number from 1 to 64; 0 is not.',
    });
    expect(problemWith(cap, '2.5')).toHaveProperty('problem');
    expect(problemWith(cap, 'ten')).toEqual({
      problem: 'Running at once in a session, at most (background.maxConcurrent) must be a whole number from 1 to 64.',
    });
    expect(problemWith(cap, ' 8 ')).toEqual({ value: 8 });
    expect(problemWith(tunable('background.stopGraceSeconds'), '0.5')).toEqual({ value: 0.5 });
    expect(problemWith(tunable('background.enabled'), 'off')).toEqual({ value: false });
  });

  it('shows figures with their units through the shared formats', () => {
    expect(valueLabel('seconds', 30)).toBe('30 s');
    expect(valueLabel('seconds', 900)).toBe('15 min (900 s)');
    expect(valueLabel('bytes', 262144)).toBe('256 KiB (262144 bytes)');
    expect(valueLabel('switch', true)).toBe('on');
    expect(valueLabel('count', 2_000_000)).toBe('2,000,000');
    expect(valueLabel('seconds', -1)).toBe('no cap');
  });

  it('the Unattended work figures: the budget, the resume guard and sleep, each with its own schema', () => {
    const unattended = TUNABLES.filter((entry) => entry.group === 'unattended').map((entry) => entry.id);
    expect(unattended).toEqual([
      'budget.turns',
      'budget.tokens',
      'scheduler.resumeWithoutAsking',
      'sleep.minSeconds',
      'sleep.maxSeconds',
    ]);
    expect(boundsOf('budget.tokens')).toEqual({ min: 1000, max: 1_000_000_000, whole: true });
    expect(problemWith(tunable('budget.turns'), '0')).toHaveProperty(
      'problem',
      expect.stringContaining('budget.turns'),
    );
    expect(problemWith(tunable('sleep.maxSeconds'), '-1')).toEqual({ value: -1 });
    expect(problemWith(tunable('sleep.maxSeconds'), '0')).toHaveProperty('problem');
    // The old wake-up cap is part of the budget now: the page no longer offers it.
    expect(TUNABLES.map((entry) => entry.id)).not.toContain('agent.maxWakesPerSession');
  });
});
