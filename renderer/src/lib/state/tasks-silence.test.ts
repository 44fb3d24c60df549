// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { DroverApi } from '../api.js';
import { taskRow, taskPages } from '../test-tasks.js';
import { TasksState } from './tasks.svelte.js';

/** Just enough of the api: one listing, and a way to fire events. */
function fakeApi(rows: ReturnType<typeof taskRow>[]) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const api = {
    ...taskPages(() => rows),
    on: (name: string, listener: (payload: unknown) => void) => {
      listeners.set(name, listener);
      return () => listeners.delete(name);
    },
  } as unknown as DroverApi;
  return { api, emit: (name: string, payload: unknown) => listeners.get(name)?.(payload) };
}

describe('"silent for", kept current from events without asking the service again', () => {
  it('counts from the start, then from the last output event', async () => {
    const started = Date.parse('2025-01-01T12:00:00.000Z');
    const { api, emit } = fakeApi([taskRow('bg_1')]);
    const tasks = new TasksState(api, 's1');
    const stop = tasks.start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(tasks.silentFor('bg_1', started + 30_000)).toBeNull();
    expect(tasks.silentFor('bg_1', started + 90_000)).toBe(90);
    emit('taskOutput', { sessionId: 's1', taskId: 'bg_1', totalBytes: 10 });
    expect(tasks.silentFor('bg_1', Date.now() + 10_000)).toBeNull();
    expect(tasks.silentFor('bg_1', Date.now() + 61_000)).toBeGreaterThanOrEqual(60);
    expect(tasks.silentFor('nope', Date.now())).toBeNull();
    stop();
  });
});
