/** The clock set back an hour while a task runs: it never ends before it began. */
import { describe, expect, it } from 'vitest';
import { eventually } from './fault-kit.js';
import { HOUR, poolWithClock } from './clock-pool.js';

describe('the clock set back under a running task', () => {
  it('never records ended_at before started_at', async () => {
    const { clock, waiting, go, row, close } = poolWithClock();
    const task = await waiting(0);
    await eventually(() => row(task.id).status === 'running', 'the task to run');
    clock.offset = -HOUR;
    go();
    await eventually(() => row(task.id).status !== 'running', 'the task to end');
    const ended = row(task.id);
    expect(Date.parse(ended.endedAt!)).toBeGreaterThanOrEqual(Date.parse(ended.startedAt!));
    await close();
  }, 60_000);
});
