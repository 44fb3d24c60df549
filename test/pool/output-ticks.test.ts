import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newLive, OUTPUT_EVENT_INTERVAL_MS, OutputTicks, type Live } from '../../electron/pool/live-task.js';
import type { TaskRecord } from '../../electron/pool/task-record.js';
import { until } from '../helpers.js';
import { makePool, type Harness } from './pool-harness.js';

/**
 * Output events share one tick (issue 18): every task that printed since the last tick is told
 * then, together, at most once per tick, so a page gets one frame and updates once.
 */

const live = (id: string): Live => newLive({ id } as TaskRecord, 1024);

describe('OutputTicks', () => {
  afterEach(() => vi.useRealTimers());

  it('tells every task that printed during a tick together when it comes, once each, in the order they printed', () => {
    vi.useFakeTimers();
    const told: string[] = [];
    const ticks = new OutputTicks((task) => told.push(task.record.id));
    const [a, b, c] = [live('bg_1'), live('bg_2'), live('bg_3')];
    ticks.add(b);
    vi.advanceTimersByTime(100);
    ticks.add(a);
    ticks.add(b);
    vi.advanceTimersByTime(OUTPUT_EVENT_INTERVAL_MS - 101);
    expect(told).toEqual([]);
    ticks.add(c);
    vi.advanceTimersByTime(1);
    expect(told).toEqual(['bg_2', 'bg_1', 'bg_3']); // all in the one timer's pass
    expect(vi.getTimerCount()).toBe(0); // nothing waits: no timer runs

    ticks.add(a);
    vi.advanceTimersByTime(OUTPUT_EVENT_INTERVAL_MS - 1);
    expect(told).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(told).toEqual(['bg_2', 'bg_1', 'bg_3', 'bg_1']);
  });

  it('forgets a dropped task, and stops its timer when none is left', () => {
    vi.useFakeTimers();
    const told: string[] = [];
    const ticks = new OutputTicks((task) => told.push(task.record.id));
    const [a, b] = [live('bg_1'), live('bg_2')];
    ticks.add(a);
    ticks.add(b);
    ticks.drop(a);
    expect(vi.getTimerCount()).toBe(1);
    ticks.drop(b);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(OUTPUT_EVENT_INTERVAL_MS * 4);
    expect(told).toEqual([]);
    ticks.add(b);
    vi.advanceTimersByTime(OUTPUT_EVENT_INTERVAL_MS);
    expect(told).toEqual(['bg_2']);
  });
});

describe('output events of a real pool', () => {
  let harness: Harness | null = null;
  afterEach(async () => {
    await harness?.pool.drain();
    harness?.containers.dispose();
    harness?.db.close();
    harness = null;
  });

  it('come for several printing tasks in the same turn, each task at most once a tick, and once more at its end', async () => {
    const turns: { taskId: string; totalBytes: number }[][] = [];
    let turn: { taskId: string; totalBytes: number }[] | null = null;
    harness = makePool({}, undefined, {
      onOutput: (taskId, totalBytes) => {
        if (!turn) {
          turn = [];
          turns.push(turn);
          setImmediate(() => (turn = null));
        }
        turn.push({ taskId, totalBytes });
      },
    });
    const { pool, sessionId } = harness;
    const command = 'for i in $(seq 1 80); do echo "line $i"; sleep 0.03; done';
    const tasks = await Promise.all([1, 2, 3].map(() => pool.start({ sessionId, command, cwd: tmpdir() })));
    const ids = tasks.map((task) => task.id);
    // Some tick finds all three printing: they are told in one turn.
    await until(
      () => turns.some((each) => ids.every((id) => each.some((event) => event.taskId === id))),
      'a turn that tells all three tasks',
      15_000,
    );
    for (const each of turns) {
      const named = each.map((event) => event.taskId);
      expect(new Set(named).size).toBe(named.length); // no task twice in one turn
    }
    const ended = await Promise.all(ids.map((id) => pool.waitFor(id, 20_000)));
    for (const record of ended) expect(record?.status).toBe('succeeded');
    // The last event of each task carries all of its output.
    for (const id of ids) {
      const last = turns
        .flat()
        .filter((event) => event.taskId === id)
        .at(-1);
      expect(last?.totalBytes).toBe((await pool.output(sessionId, id)).text.length + 1);
    }
  });
});
