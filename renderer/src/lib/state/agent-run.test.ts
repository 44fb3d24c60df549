import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentRun } from '@shared/schemas/subagent.js';
import type { TaskRow } from '@shared/contract.js';
import { DroverError } from '@shared/ipc/errors.js';
import type { DroverApi } from '../api.js';
import { settledRow } from '../test-tasks.js';
import { AGENT_REFETCH_MS, AgentRunState, RefetchThrottle } from './agent-run.svelte.js';

/** A fetch that answers only when told, counting how many run at once. */
function gatedFetch() {
  const gates: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  const fetch = vi.fn(
    () =>
      new Promise<void>((resolve) => {
        inFlight++;
        most = Math.max(most, inFlight);
        gates.push(() => {
          inFlight--;
          resolve();
        });
      }),
  );
  /** Answers the oldest fetch and lets its follow-up be scheduled. */
  const answer = async () => {
    gates.shift()?.();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { fetch, answer, most: () => most, waiting: () => gates.length };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('RefetchThrottle', () => {
  it('fetches at once, then coalesces a burst into one fetch per interval', async () => {
    const { fetch, answer } = gatedFetch();
    const throttle = new RefetchThrottle(fetch, 250);
    throttle.request();
    expect(fetch).toHaveBeenCalledTimes(1);
    await answer();
    for (let i = 0; i < 50; i++) throttle.request();
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(249);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('never has two fetches in flight, and a change during one leads to a final fetch after it', async () => {
    const { fetch, answer, most, waiting } = gatedFetch();
    const throttle = new RefetchThrottle(fetch, 250);
    throttle.request();
    // The answer takes long: changes meanwhile wait for it.
    await vi.advanceTimersByTimeAsync(1000);
    throttle.request();
    throttle.request();
    expect(fetch).toHaveBeenCalledTimes(1);
    await answer();
    // The interval has long passed: the follow-up goes at once, and only one.
    expect(fetch).toHaveBeenCalledTimes(2);
    await answer();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(most()).toBe(1);
    expect(waiting()).toBe(0);
  });

  it('holds at most about 4 fetches a second under a steady stream of changes', async () => {
    const { fetch, answer } = gatedFetch();
    const throttle = new RefetchThrottle(fetch, 250);
    for (let ms = 0; ms < 2000; ms += 10) {
      throttle.request();
      await answer();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(fetch.mock.calls.length).toBeGreaterThanOrEqual(7);
    expect(fetch.mock.calls.length).toBeLessThanOrEqual(9);
  });

  it('keeps going after a failed fetch, and fetches nothing once stopped', async () => {
    const fetch = vi.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(undefined);
    const throttle = new RefetchThrottle(fetch, 250);
    throttle.request();
    await vi.advanceTimersByTimeAsync(0);
    throttle.request();
    await vi.advanceTimersByTimeAsync(250);
    expect(fetch).toHaveBeenCalledTimes(2);
    throttle.request();
    throttle.stop();
    await vi.advanceTimersByTimeAsync(1000);
    throttle.request();
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});

function run(patch: Partial<AgentRun> = {}): AgentRun {
  return { status: 'running', result: null, error: null, events: [], truncated: false, ...patch };
}

function fakeApi(answers: (AgentRun | Error)[]) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const getAgentRun = vi.fn(async (_input: { sessionId: string; taskId: string }) => {
    const next = answers.length > 1 ? answers.shift()! : answers[0]!;
    if (next instanceof Error) throw next;
    return next;
  });
  const api = {
    getAgentRun,
    on: (name: string, listener: (payload: unknown) => void) => {
      listeners.set(name, listener);
      return () => listeners.delete(name);
    },
  } as unknown as DroverApi;
  const emit = (name: string, payload: unknown) => listeners.get(name)?.(payload);
  return { api, getAgentRun, emit, listeners };
}

describe('AgentRunState', () => {
  it('fetches when it opens, follows its own taskOutput events (throttled), and reads the transcript', async () => {
    const first = run({
      events: [{ type: 'start', at: '2025-01-01T12:00:00.000Z', agent: 'researcher', prompt: 'p' }],
    });
    const second = run({
      ...first,
      events: [...first.events, { type: 'text', at: '2025-01-01T12:00:01.000Z', text: 'Hi' }],
    });
    const { api, getAgentRun, emit } = fakeApi([first, second]);
    const state = new AgentRunState(api, 's1', 'agt_1');
    const stop = state.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(getAgentRun).toHaveBeenCalledWith({ sessionId: 's1', taskId: 'agt_1' });
    expect(state.transcript?.start?.agent).toBe('researcher');
    emit('taskOutput', { sessionId: 's1', taskId: 'agt_2', totalBytes: 10 });
    emit('taskOutput', { sessionId: 's2', taskId: 'agt_1', totalBytes: 10 });
    await vi.advanceTimersByTimeAsync(AGENT_REFETCH_MS);
    expect(getAgentRun).toHaveBeenCalledTimes(1);
    // The first goes at once; the second came while it was on its way, so one more follows, an interval later.
    emit('taskOutput', { sessionId: 's1', taskId: 'agt_1', totalBytes: 10 });
    emit('taskOutput', { sessionId: 's1', taskId: 'agt_1', totalBytes: 20 });
    expect(getAgentRun).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(AGENT_REFETCH_MS - 1);
    expect(getAgentRun).toHaveBeenCalledTimes(2);
    expect(state.transcript?.items).toMatchObject([{ kind: 'message', text: 'Hi' }]);
    await vi.advanceTimersByTimeAsync(1);
    expect(getAgentRun).toHaveBeenCalledTimes(3);
    stop();
    emit('taskOutput', { sessionId: 's1', taskId: 'agt_1', totalBytes: 30 });
    await vi.advanceTimersByTimeAsync(AGENT_REFETCH_MS);
    expect(getAgentRun).toHaveBeenCalledTimes(3);
  });

  it('fetches once more when its row settles, for the result', async () => {
    const { api, getAgentRun, emit } = fakeApi([run(), run({ status: 'completed', result: 'Found it' })]);
    const state = new AgentRunState(api, 's1', 'agt_1');
    state.start();
    await vi.advanceTimersByTimeAsync(0);
    const row: TaskRow = settledRow('agt_1', '2025-01-01T12:00:05.000Z', { kind: 'agent' });
    emit('taskUpdated', { task: { ...row, status: 'running' } });
    await vi.advanceTimersByTimeAsync(AGENT_REFETCH_MS);
    expect(getAgentRun).toHaveBeenCalledTimes(1);
    emit('taskUpdated', { task: row });
    await vi.advanceTimersByTimeAsync(AGENT_REFETCH_MS);
    expect(getAgentRun).toHaveBeenCalledTimes(2);
    expect(state.run?.result).toBe('Found it');
  });

  it('says why a fetch failed, clears it on the next, and marks a task the service no longer knows', async () => {
    const { api, emit } = fakeApi([new Error('socket closed'), run()]);
    const state = new AgentRunState(api, 's1', 'agt_1');
    state.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.error).toBe("Could not read the agent's transcript: socket closed");
    emit('taskOutput', { sessionId: 's1', taskId: 'agt_1', totalBytes: 1 });
    await vi.advanceTimersByTimeAsync(AGENT_REFETCH_MS);
    expect(state.error).toBeNull();
    expect(state.run).not.toBeNull();

    const gone = new AgentRunState(fakeApi([new DroverError('not_found', 'No task agt_9')]).api, 's1', 'agt_9');
    gone.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(gone.gone).toBe(true);
    expect(gone.error).toBeNull();
  });
});
