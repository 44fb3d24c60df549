import { describe, expect, it } from 'vitest';
import { heldSummary, scheduleKindLabel } from './schedules.js';

describe('the resume guard’s sentence', () => {
  it('counts schedules and loops, and a missed one-off apart', () => {
    const cron = { kind: 'cron' as const, needsConfirmation: false };
    const loop = { kind: 'loop' as const, needsConfirmation: false };
    const missed = { kind: 'cron' as const, needsConfirmation: true };
    expect(heldSummary([cron, cron, cron, loop])).toBe('3 schedules and 1 loop will resume');
    expect(heldSummary([loop])).toBe('1 loop will resume');
    expect(heldSummary([cron, missed])).toBe('1 schedule will resume; 1 missed one-off waits for you');
    expect(heldSummary([missed, missed])).toBe('2 missed one-offs wait for you');
  });

  it('names the kind of a schedule', () => {
    expect(scheduleKindLabel({ kind: 'cron', recurring: false, durable: false })).toBe('reminder');
    expect(scheduleKindLabel({ kind: 'cron', recurring: true, durable: true })).toBe('durable recurring');
    expect(scheduleKindLabel({ kind: 'self_paced', recurring: true, durable: false })).toBe('self-paced loop');
  });
});
