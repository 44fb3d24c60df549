// @vitest-environment jsdom
// The session list is asked for by boot.ts before the app loads (issue 18): what changed between
// that request and the moment the list follows the events is not lost, and a failed early answer
// is asked again.
import { describe, expect, it, vi } from 'vitest';
import type { Session } from '@shared/contract.js';
import type { DroverApi } from '../api.js';
import { testEvents } from '../test-tasks.js';
import { OpenPrefetch } from './open-prefetch.js';
import { SessionsState } from './sessions.svelte.js';

function session(id: string, minute: number, title = id): Session {
  const at = new Date(Date.UTC(2025, 0, 1, 12, minute)).toISOString();
  return { id, title, createdAt: at, updatedAt: at, messageCount: 0, mode: 'agent' };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setUp(stored: Session[]) {
  const bus = testEvents();
  let answer!: (list: Session[]) => void;
  const listSessions = vi.fn(() => new Promise<Session[]>((resolve) => (answer = resolve)));
  const api = { listSessions, on: bus.on } as unknown as DroverApi;
  return { bus, api, listSessions, answer: () => answer(stored) };
}

describe('the session list asked for before the app loaded', () => {
  it('takes the early answer and replays the changes that came before and after the take, in order', async () => {
    const { bus, api, listSessions, answer } = setUp([session('a', 1), session('b', 2)]);
    const prefetch = new OpenPrefetch(api);
    prefetch.startSessions();
    // Before the app followed the events: one session renamed, one deleted, one new.
    bus.emit('sessionUpserted', { session: session('a', 5, 'renamed') });
    bus.emit('sessionDeleted', { id: 'b' });
    bus.emit('sessionUpserted', { session: session('c', 3) });

    const sessions = new SessionsState(api);
    const stop = sessions.start(prefetch.takeSessions());
    // After: c changes again while the answer is still on its way.
    bus.emit('sessionUpserted', { session: session('c', 7, 'c again') });
    answer();
    await settle();

    expect(listSessions).toHaveBeenCalledTimes(1);
    expect(sessions.loaded).toBe(true);
    expect(sessions.list.map((s) => [s.id, s.title])).toEqual([
      ['c', 'c again'],
      ['a', 'renamed'],
    ]);
    // The prefetch is spent: a later take has nothing, and its listeners are gone (the state's own remain).
    expect(prefetch.takeSessions()).toBeNull();
    expect([bus.count('sessionUpserted'), bus.count('sessionDeleted')]).toEqual([1, 1]);
    bus.emit('sessionDeleted', { id: 'a' });
    expect(sessions.list.map((s) => s.id)).toEqual(['c']);
    stop();
    expect([bus.count('sessionUpserted'), bus.count('sessionDeleted')]).toEqual([0, 0]);
  });

  it('asks itself when nothing was asked early', async () => {
    const { api, listSessions, answer } = setUp([session('a', 1)]);
    const sessions = new SessionsState(api);
    const stop = sessions.start(new OpenPrefetch(api).takeSessions());
    answer();
    await settle();
    expect(listSessions).toHaveBeenCalledTimes(1);
    expect(sessions.list.map((s) => s.id)).toEqual(['a']);
    stop();
  });

  it('asks again when the early answer failed (the connection dropped before the app took it)', async () => {
    const bus = testEvents();
    const answers = [Promise.reject(new Error('disconnected')), Promise.resolve([session('a', 1)])];
    const listSessions = vi.fn(() => answers.shift()!);
    const api = { listSessions, on: bus.on } as unknown as DroverApi;
    const prefetch = new OpenPrefetch(api);
    prefetch.startSessions();
    const sessions = new SessionsState(api);
    const stop = sessions.start(prefetch.takeSessions());
    await settle();
    expect(listSessions).toHaveBeenCalledTimes(2);
    expect(sessions.loaded).toBe(true);
    expect(sessions.error).toBeNull();
    expect(sessions.list.map((s) => s.id)).toEqual(['a']);
    stop();

    // Both failing: the second failure is the one shown.
    const failing = {
      listSessions: vi.fn(() => Promise.reject(new Error('the host is gone'))),
      on: testEvents().on,
    } as unknown as DroverApi;
    const again = new OpenPrefetch(failing);
    again.startSessions();
    const later = new SessionsState(failing);
    const stopLater = later.start(again.takeSessions());
    await settle();
    expect(later.loaded).toBe(false);
    expect(later.error).toMatch(/Could not load sessions: .*the host is gone/);
    stopLater();
  });

  it('drops an answer nobody took within its keep time, and stops buffering', async () => {
    vi.useFakeTimers();
    try {
      const { bus, api } = setUp([]);
      const prefetch = new OpenPrefetch(api);
      prefetch.startSessions();
      bus.emit('sessionUpserted', { session: session('a', 1) });
      expect(bus.count('sessionUpserted')).toBe(1);
      await vi.advanceTimersByTimeAsync(9_000);
      expect(bus.count('sessionUpserted')).toBe(1);
      await vi.advanceTimersByTimeAsync(1_001);
      expect(prefetch.takeSessions()).toBeNull();
      expect([bus.count('sessionUpserted'), bus.count('sessionDeleted')]).toEqual([0, 0]);
    } finally {
      vi.useRealTimers();
    }
  });
});
