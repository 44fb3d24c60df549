import { describe, expect, it, vi } from 'vitest';
import type { DroverApi } from '../api.js';
import { TaskSearchState, type TerminalFinder } from './task-search.svelte.js';

/** A host whose log has one match before the terminal's text (byte 0) and `later` in it. */
function fakeApi(later: number) {
  const scanTaskLog = vi.fn(async () => ({
    matches: [
      { line: 1, byte: 0, count: 1, text: 'needle zero' },
      ...Array.from({ length: later }, (_, i) => ({
        line: 100 + i,
        byte: 5000 + i * 10,
        count: 1,
        text: `needle ${i}`,
      })),
    ],
    truncated: false,
    total: 1 + later,
    settledTotal: 1 + later,
    resumeByte: 9000,
    resumeLine: 200,
    linesSearched: 199,
  }));
  return { api: { scanTaskLog, on: () => () => {} } as unknown as DroverApi, scanTaskLog };
}

describe('TaskSearchState', () => {
  it('counts over the whole log and walks from the terminal into older output and back', async () => {
    vi.useFakeTimers();
    const { api, scanTaskLog } = fakeApi(3);
    const search = new TaskSearchState(api, 's1', 'bg_1', () => 4000);
    const calls: string[] = [];
    const finder: TerminalFinder = {
      find: (_q, direction) => {
        calls.push(direction);
        search.terminalResults(direction === 'previous' ? 2 : 0, 3);
      },
      edge: (_q, which) => {
        calls.push(which);
        search.terminalResults(which === 'first' ? 0 : 2, 3);
      },
      unselect: () => calls.push('unselect'),
      clear: () => calls.push('clear'),
    };
    search.attach(finder);
    search.setQuery('needle');
    await vi.runAllTimersAsync();
    expect(scanTaskLog).toHaveBeenCalledOnce();
    // The newest match is current: the last of four.
    expect([search.position, search.total]).toEqual([4, 4]);
    search.next();
    expect(search.earlierMatch?.line).toBe(1);
    expect(search.position).toBe(1);
    // The addon selecting a match on its own (output, a resize) does not leave the older line.
    search.terminalResults(2, 3);
    expect(search.earlierMatch?.line).toBe(1);
    search.next();
    expect([search.earlierMatch, search.position]).toEqual([null, 2]);
    search.previous();
    expect(search.position).toBe(1);
    expect(calls).toEqual(['previous', 'unselect', 'unselect', 'first', 'unselect']);
    search.close();
    expect(search.total).toBe(0);
    vi.useRealTimers();
  });

  it('scans again for output that arrived while the first scan was running', async () => {
    vi.useFakeTimers();
    const listeners = new Map<string, (payload: unknown) => void>();
    let release: () => void = () => {};
    const answer = (total: number) => ({
      matches: [],
      truncated: false,
      total,
      settledTotal: total,
      resumeByte: 10 * total,
      resumeLine: total + 1,
      linesSearched: total,
    });
    const scanTaskLog = vi
      .fn()
      .mockImplementationOnce(() => new Promise((resolve) => (release = () => resolve(answer(1)))))
      .mockImplementation(async () => answer(2));
    const api = {
      scanTaskLog,
      on: (name: string, listener: (payload: unknown) => void) => {
        listeners.set(name, listener);
        return () => listeners.delete(name);
      },
    } as unknown as DroverApi;
    const search = new TaskSearchState(api, 's1', 'bg_1', () => 4000);
    const stop = search.start();
    search.setQuery('needle');
    await vi.runAllTimersAsync();
    expect(scanTaskLog).toHaveBeenCalledOnce();
    // The task prints while the first scan is on its way.
    listeners.get('taskOutput')!({ sessionId: 's1', taskId: 'bg_1' });
    release();
    await vi.runAllTimersAsync();
    expect(scanTaskLog).toHaveBeenCalledTimes(2);
    expect(scanTaskLog.mock.calls[1]![0]).toMatchObject({ fromByte: 10, firstLine: 2 });
    stop();
    vi.useRealTimers();
  });
});
