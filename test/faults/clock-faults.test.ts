/**
 * The wall clock jumping back and forward under running tasks. The machine's clock is never
 * touched: the pool runs in this process with an injected clock over real child processes.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from './fault-kit.js';
import { HOUR, poolWithClock } from './clock-pool.js';

/** Elapsed as a person would read it: never negative, never the size of the jump. */
function expectSane(row: { elapsedSeconds: number }, limitSeconds: number) {
  expect(row.elapsedSeconds).toBeGreaterThanOrEqual(0);
  expect(row.elapsedSeconds).toBeLessThan(limitSeconds);
}

describe('the clock jumping under running tasks', () => {
  it('jumping back an hour: a task ends with its exit code and a sane elapsed time, and a timeout still fires on time', async () => {
    const { clock, waiting, go, row, close, pool } = poolWithClock();
    const ends = await waiting(4);
    const timed = await pool.start({ sessionId: 'clock', command: 'exec sleep 600', cwd: '/', timeoutSeconds: 2 });
    await eventually(
      () => row(ends.id).status === 'running' && row(timed.id).status === 'running',
      'both tasks to run',
    );
    clock.offset = -HOUR;
    expectSane(row(ends.id), 60);
    go();
    await eventually(() => row(ends.id).status !== 'running', 'the task to end');
    expect(row(ends.id)).toMatchObject({ status: 'failed', exitCode: 4 });
    expectSane(row(ends.id), 60);
    // The timeout counts real time: an hour back on the clock does not buy the task an hour.
    await eventually(() => row(timed.id).status !== 'running', 'the timeout to fire', 60_000);
    expect(row(timed.id).status).toBe('timed_out');
    expect(await close()).toEqual({ integrity: 'ok', strays: [] });
  }, 90_000);

  it('jumping forward an hour: no task is timed out early by the jump, and a short timeout still fires', async () => {
    const { clock, waiting, go, row, close, pool } = poolWithClock();
    const ends = await waiting(0, 120);
    await eventually(() => row(ends.id).status === 'running', 'the task to run');
    clock.offset = HOUR;
    const timed = await pool.start({ sessionId: 'clock', command: 'exec sleep 600', cwd: '/', timeoutSeconds: 2 });
    await eventually(
      () => row(timed.id).status !== 'running' && row(timed.id).status !== 'queued',
      'the short timeout to fire',
      60_000,
    );
    expect(row(timed.id).status).toBe('timed_out');
    expectSane(row(timed.id), 60);
    // The first task outlived the short one's timeout and its own clock-hour: it still runs, and ends on its own terms.
    expect(row(ends.id).status).toBe('running');
    go();
    await eventually(() => row(ends.id).status !== 'running', 'the task to end');
    expect(row(ends.id)).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(await close()).toEqual({ integrity: 'ok', strays: [] });
  }, 90_000);
});
