// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { BudgetState } from '@shared/schemas/budget.js';
import type { DroverApi } from '../api.js';
import { TaskNotifier, type NotifyHost } from './notifier.svelte.js';

function setup(options: { away?: boolean; enabled?: boolean } = {}) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const api = {
    on: (name: string, listener: (payload: unknown) => void) => {
      listeners.set(name, listener);
      return () => listeners.delete(name);
    },
  } as unknown as DroverApi;
  const shown: { title: string; body: string; click: () => void }[] = [];
  const host: NotifyHost = {
    inBackground: () => options.away ?? true,
    show: (notice, onClick) => shown.push({ ...notice, click: onClick }),
  };
  const opened: string[] = [];
  const notifier = new TaskNotifier(api, host, {
    enabled: () => options.enabled ?? true,
    sessionTitle: () => 'Deploy watch',
    open: (sessionId, taskId) => opened.push(`${sessionId}/${taskId}`),
    openSession: (sessionId) => opened.push(sessionId),
  });
  const stop = notifier.start();
  const emit = (name: string, payload: unknown) => listeners.get(name)?.(payload);
  return { shown, opened, emit, stop, listeners };
}

const budget = (patch: Partial<BudgetState> = {}): BudgetState => ({
  sessionId: 's1',
  turnsUsed: 40,
  turnsMax: 50,
  tokensUsed: 1_200_000,
  tokensMax: 2_000_000,
  warned: true,
  spent: false,
  ...patch,
});

describe('notifications of the unattended budget', () => {
  it('notifies at 80 % and when spent, and opens the session on a click; not for plain changes', () => {
    const { shown, opened, emit } = setup();
    emit('budgetChanged', { budget: budget({ warned: false, turnsUsed: 3 }), told: null });
    expect(shown).toEqual([]);
    emit('budgetChanged', { budget: budget(), told: 'warned' });
    expect(shown[0]).toMatchObject({
      title: 'Unattended budget at 80 %',
      body: '“Deploy watch” · 40 of 50 turns, 1.2M of 2M tokens used.',
    });
    emit('budgetChanged', { budget: budget({ turnsUsed: 50, spent: true }), told: 'spent' });
    expect(shown[1]).toMatchObject({ title: 'Unattended budget spent' });
    expect(shown[1]!.body).toMatch(/50 of 50 turns.*wait until you resume it/);
    shown[1]!.click();
    expect(opened).toEqual(['s1']);
  });

  it('stays quiet while the window is in front or notifications are off, and stops listening', () => {
    for (const options of [{ away: false }, { enabled: false }]) {
      const { shown, emit } = setup(options);
      emit('budgetChanged', { budget: budget(), told: 'warned' });
      expect(shown).toEqual([]);
    }
    const { stop, listeners } = setup();
    stop();
    expect(listeners.size).toBe(0);
  });
});
