import { mkdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { posix } from 'node:path';
import { Cgroups, cgroupOf, findCgroup2 } from '../../electron/process/cgroup.js';
import { tempDir, until } from '../helpers.js';
import { spawnHost } from './spawn-host.js';
import { startRestHost } from './rest-harness.js';
import { groupRuns, pidAlive } from '../pool/pool-harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(policy = {}) {
  const { services, call, session, dataDir } = await startRestHost({ policy });
  return { services, call, session, dataDir };
}

describe('background tasks over REST', () => {
  it('runs the operator shell in the background and foreground, with rows in snake_case', async () => {
    const { call, session } = await start();
    const bg = await call('POST', `/sessions/${session}/shell`, {
      command: 'echo from-bg; sleep 0.3',
      background: true,
    });
    expect(bg.status).toBe(200);
    expect(bg.body).toMatchObject({ kind: 'command', command: 'echo from-bg; sleep 0.3', running: true, output: null });
    for (const key of [
      'id',
      'status',
      'cwd',
      'exit_code',
      'signal',
      'started_at',
      'ended_at',
      'elapsed_seconds',
      'overdue',
      'running',
    ]) {
      expect(bg.body).toHaveProperty(key);
    }
    const fg = await call('POST', `/sessions/${session}/shell`, { command: 'echo hello; exit 4' });
    expect(fg.body).toMatchObject({
      status: 'failed',
      exit_code: 4,
      output: 'hello',
      notice: null,
      foreground: true,
      adopted: false,
    });

    for (
      let i = 0;
      i < 100 && (await call('GET', `/sessions/${session}/background-tasks/${bg.body.id}`)).body.task.running;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const list = await call('GET', `/sessions/${session}/background-tasks`);
    expect(list.body.tasks.map((t: { id: string }) => t.id)).toEqual([bg.body.id, fg.body.id]);
    expect(list.body).toHaveProperty('running_count');
    const one = await call('GET', `/sessions/${session}/background-tasks/${bg.body.id}?tail=5`);
    expect(one.body).toMatchObject({
      task: { status: 'succeeded', exit_code: 0 },
      output: { text: 'from-bg', truncated: false },
    });

    const messages = await call('GET', `/sessions/${session}/messages`);
    expect(messages.body.map((m: { role: string; task_id: string }) => [m.role, m.task_id])).toEqual([
      ['tool', bg.body.id],
      ['tool', fg.body.id],
    ]);
  });

  it('stops a task, tells an already settled one apart, and clears only finished tasks', async () => {
    const { call, session } = await start();
    const long = await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'sleep 30',
      expected_seconds: 5,
    });
    expect(long.status).toBe(201);
    expect(long.body).toMatchObject({ expected_seconds: 5, timeout_seconds: 60, status: 'running' });
    const quick = await call('POST', `/sessions/${session}/shell`, { command: 'true' });
    const cleared = await call('DELETE', `/sessions/${session}/background-tasks`);
    expect(cleared.body).toEqual({ removed: [quick.body.id] });
    const stopped = await call('POST', `/sessions/${session}/background-tasks/${long.body.id}/stop`);
    expect(stopped.body).toMatchObject({
      already_settled: false,
      task: { status: 'stopped', exit_code: 143, signal: 'SIGTERM' },
    });
    const again = await call('POST', `/sessions/${session}/background-tasks/${long.body.id}/stop`);
    expect(again.body).toMatchObject({ already_settled: true, task: { status: 'stopped' } });
  });

  it('answers bad ids and bodies with 4xx and a message', async () => {
    const { call, session } = await start();
    const cases: [string, string, unknown, number, RegExp][] = [
      ['GET', `/sessions/${session}/background-tasks/bg_999`, undefined, 404, /No task with id "bg_999"/],
      ['GET', `/sessions/${session}/background-tasks/not-an-id`, undefined, 400, /task_id/],
      ['GET', `/sessions/${session}/background-tasks/bg_1?tail=lots`, undefined, 400, /tail/],
      ['GET', `/sessions/${session}/background-tasks/bg_1?tail=0`, undefined, 400, /tail/],
      ['POST', `/sessions/${session}/background-tasks/bg_999/stop`, undefined, 404, /bg_999/],
      ['GET', `/sessions/nosuchsession/background-tasks`, undefined, 404, /No session/],
      ['POST', `/sessions/${session}/shell`, { command: '' }, 400, /command/],
      ['POST', `/sessions/${session}/shell`, { command: 'echo', background: 'yes' }, 400, /background/],
      [
        'POST',
        `/sessions/${session}/background-tasks`,
        { command: 'true', timeout_seconds: -1 },
        400,
        /timeout_seconds/,
      ],
    ];
    for (const [method, path, body, status, pattern] of cases) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(res.body.error.message, `${method} ${path}`).toMatch(pattern);
    }
  });

  it('hands a foreground run that outlives its wait to the background, with the notice first', async () => {
    const { call, session } = await start({ foregroundWaitMs: 500 });
    const res = await call('POST', `/sessions/${session}/shell`, { command: 'echo serving; sleep 2; echo later' });
    expect(res.body).toMatchObject({
      status: 'running',
      adopted: true,
      foreground: true,
      timeout_seconds: 3600,
      output: 'serving',
    });
    // The operator's notice is worded for the person; the model's own notice is tested in test/agent.
    expect(res.body.notice).toBe(
      `Moved to the background after 1 s: it keeps running as task ${res.body.id} (hard timeout 1 h).`,
    );
  });

  it('deleting a session stops its tasks', async () => {
    const { call, session, services } = await start();
    const task = await call('POST', `/sessions/${session}/background-tasks`, { command: 'sleep 30' });
    const pid = task.body.pid as number;
    expect((await call('DELETE', `/sessions/${session}`)).status).toBe(200);
    expect(pidAlive(pid)).toBe(false);
    expect(services.pool.runningCount()).toBe(0);
  });
});

describe('stopping the host', () => {
  it('stops every running task as a group before it exits', async () => {
    const host = await spawnHost(tempDir());
    const session = (await host.call('POST', '/sessions', {})).id;
    const task = await host.call('POST', `/sessions/${session}/background-tasks`, {
      command: "(trap '' HUP; sleep 60) & sleep 60",
    });
    expect(await host.stop('SIGTERM')).toBe(0);
    // Nothing of the group runs on (a zombie is dead: it waits only to be reaped by init).
    expect(groupRuns(task.pid)).toBe(false);
  }, 30_000);
});

describe('a restart of the host', () => {
  it("shows the earlier run's still-running tasks as orphaned leftovers", async () => {
    const dataDir = tempDir();
    mkdirSync(dataDir, { recursive: true });
    const first = await spawnHost(dataDir);
    const session = (await first.call('POST', '/sessions', {})).id;
    const task = await first.call('POST', `/sessions/${session}/background-tasks`, {
      command: "trap '' HUP; echo armed; exec sleep 60",
    });
    const done = await first.call('POST', `/sessions/${session}/shell`, { command: 'echo ok' });
    // Killed only once it ignores the hangup (it says so): waiting for the event, not for time.
    while (
      !(await first.call('GET', `/sessions/${session}/background-tasks/${task.id}`)).output.text.includes('armed')
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Its cgroup (where Drover makes them) outlives both hosts: the second leaves an orphan to the
    // person, so it cannot remove it; the test ends the leftover and removes what it leaves.
    const leftCgroup = cgroupOf(task.pid);
    await first.stop('SIGKILL');
    cleanups.push(async () => {
      try {
        process.kill(-task.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      const hierarchy = findCgroup2();
      // Only a task's own cgroup; in a process group it is the host's cgroup, never to be removed.
      if (!leftCgroup || !hierarchy || !/\/drover-[a-z0-9]+\/bg_\d+$/.test(leftCgroup)) return;
      const instance = posix.dirname(leftCgroup);
      await until(() => new Cgroups(hierarchy).remove(instance), `the leftover's cgroup ${instance} to empty`);
    });

    const second = await spawnHost(dataDir);
    cleanups.push(async () => void (await second.stop()));
    const list = await second.call('GET', `/sessions/${session}/background-tasks`);
    const byId = Object.fromEntries(list.tasks.map((t: { id: string }) => [t.id, t]));
    // It ignores the hangup, so it outlives its Drover; one that ended with it would be settled as lost.
    expect(byId[task.id]).toMatchObject({ status: 'orphaned', running: false, leftover: true });
    expect(byId[done.id]).toMatchObject({ status: 'succeeded' });
    expect(list.running_count).toBe(0);
    const next = await second.call('POST', `/sessions/${session}/background-tasks`, { command: 'true' });
    expect(Number(next.id.split('_')[1])).toBeGreaterThan(Number(done.id.split('_')[1]));
  }, 60_000);
});
