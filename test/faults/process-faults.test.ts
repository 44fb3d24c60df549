/**
 * Faults of the host process itself, with real processes: stopped with SIGSTOP while its tasks
 * end, flooded with a thousand task starts, and a session deleted while its tasks pour output.
 */
import { describe, expect, it } from 'vitest';
import { hostCases } from './host-cases.js';
import { eventually, processesMarked, RUN_MARK_VARIABLE, running } from './fault-kit.js';

const newCase = hostCases();

const SETTLED = ['succeeded', 'failed', 'timed_out', 'stopped', 'lost'];

describe('process faults of the host', () => {
  it('records every task that ended while the host was stopped for 10 s, with its exit code, and answers after SIGCONT', async () => {
    const fault = newCase();
    const host = await fault.start();
    const session = (await fault.ok('POST', '/sessions', { title: 'stopped host' })).id as string;
    const codes = [0, 1, 2, 3, 7];
    const tasks = await Promise.all(
      codes.map((code) =>
        fault.ok('POST', `/sessions/${session}/background-tasks`, {
          command: `printf 'started\\n'; sleep 1; exit ${code}`,
        }),
      ),
    );
    await eventually(
      async () => (await Promise.all(tasks.map((t) => fault.task(session, t.id)))).every((t) => t.status === 'running'),
      'every task to run',
    );

    host.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    // While the host is stopped every task ends; then the stop is held to its full 10 s.
    await eventually(() => tasks.every((t) => !running(t.pid)), 'the tasks to end while the host is stopped', 60_000);
    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - stoppedAt))));
    host.child.kill('SIGCONT');

    expect((await host.call('GET', '/info')).status).toBe(200);
    const ended = await eventually(async () => {
      const rows = await Promise.all(tasks.map((t) => fault.task(session, t.id)));
      return rows.every((row) => SETTLED.includes(row.status)) && rows;
    }, 'every task to be recorded as ended');
    expect(ended.map((row: any) => row.exit_code)).toEqual(codes);
    expect(ended.map((row: any) => row.status)).toEqual(codes.map((code) => (code === 0 ? 'succeeded' : 'failed')));

    const closed = await fault.close();
    expect(closed).toEqual({ exit: { code: 0, signal: null }, integrity: 'ok', lost: [], strays: [] });
  }, 120_000);

  it('queues a burst of 1,000 task starts under the caps, answers /api/info throughout, and settles them all', async () => {
    const fault = newCase();
    const host = await fault.start();
    const sessions = await Promise.all([1, 2, 3, 4].map((n) => fault.ok('POST', '/sessions', { title: `burst ${n}` })));
    let bursting = true;
    const infoAnswers: number[] = [];
    const probe = (async () => {
      while (bursting) {
        infoAnswers.push((await host.call('GET', '/info')).status);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // 64 requests in flight at a time: a burst far past the caps, within what a connection limit allows one client.
    const started: { task: any }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        for (let i = next++; i < 1_000; i = next++)
          started.push({
            task: await fault.ok('POST', `/sessions/${sessions[i % 4].id}/background-tasks`, { command: 'true' }),
          });
      }),
    );
    expect(started).toHaveLength(1_000);
    // The caps held: the answers show tasks waiting their turn, never more than 5 per session running.
    expect(started.filter(({ task }) => task.status === 'queued').length).toBeGreaterThan(0);
    await eventually(
      async () => {
        const lists = await Promise.all(sessions.map((s) => fault.ok('GET', `/sessions/${s.id}/background-tasks`)));
        const rows = lists.flatMap((list: any) => (Array.isArray(list) ? list : list.tasks));
        expect(
          Math.max(
            ...sessions.map((s) => rows.filter((r: any) => r.session_id === s.id && r.status === 'running').length),
          ),
        ).toBeLessThanOrEqual(5);
        return rows.length === 1_000 && rows.every((row: any) => row.status === 'succeeded');
      },
      'all 1,000 tasks to succeed',
      240_000,
    );
    bursting = false;
    await probe;
    expect(infoAnswers.length).toBeGreaterThan(0);
    expect(infoAnswers.every((status) => status === 200)).toBe(true);

    const closed = await fault.close();
    expect(closed).toEqual({ exit: { code: 0, signal: null }, integrity: 'ok', lost: [], strays: [] });
  }, 300_000);

  it('deletes a session while its tasks pour output: its processes end, other sessions keep every row, the host answers', async () => {
    const fault = newCase();
    const host = await fault.start();
    const doomed = (await fault.ok('POST', '/sessions', { title: 'doomed' })).id as string;
    const kept = (await fault.ok('POST', '/sessions', { title: 'kept' })).id as string;
    const flood = 'i=0; while :; do i=$((i+1)); echo "line $i of a flood"; done';
    const floods = await Promise.all(
      [1, 2, 3].map(() => fault.ok('POST', `/sessions/${doomed}/background-tasks`, { command: flood })),
    );
    const keptTask = await fault.ok('POST', `/sessions/${kept}/background-tasks`, { command: "printf 'kept\\n'" });
    await eventually(
      async () =>
        (await Promise.all(floods.map((t) => host.call('GET', `/sessions/${doomed}/background-tasks/${t.id}`)))).every(
          (a) => a.body.output.total_bytes > 100_000,
        ),
      'the floods to pour',
    );

    // The census that finds strays sees these tasks: each carries the test's mark in its environment.
    expect(processesMarked(`${RUN_MARK_VARIABLE}=${fault.runMark}`)).toEqual(
      expect.arrayContaining(floods.map((t) => t.pid)),
    );

    const deleted = await host.call('DELETE', `/sessions/${doomed}`);
    expect(deleted.status).toBeLessThan(300);
    await eventually(() => floods.every((t) => !running(t.pid)), "the deleted session's tasks to end");
    expect((await host.call('GET', '/info')).status).toBe(200);
    expect((await host.call('GET', `/sessions/${doomed}`)).status).toBe(404);
    expect((await fault.task(kept, keptTask.id)).id).toBe(keptTask.id);

    const closed = await fault.close({ forgotten: new Set([doomed]) });
    expect(closed).toEqual({ exit: { code: 0, signal: null }, integrity: 'ok', lost: [], strays: [] });
  }, 120_000);
});
