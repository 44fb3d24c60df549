import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { spawnHost, type SpawnedHost } from '../host/spawn-host.js';
import { groupRuns, pidAlive } from '../pool/pool-harness.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The program a process runs now, as ps names it (on Linux and macOS alike). */
function programOf(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('/')
      .pop()!;
  } catch {
    return '';
  }
}

async function outputOf(host: SpawnedHost, session: string, id: string): Promise<string> {
  return (await host.call('GET', `/sessions/${session}/background-tasks/${id}`)).output.text as string;
}

/** Waits for a condition the tasks report, never for a fixed time: this holds on a busy machine. */
async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('leftovers after a crash (real processes, kill -9)', () => {
  it('ends plain tasks with the hangup, finds what survived, reaps it whole, and never touches a decoy', async () => {
    const dataDir = tempDir();
    const first = await spawnHost(dataDir);
    cleanups.push(() => void first.stop('SIGKILL'));
    const session = (await first.call('POST', '/sessions', { title: 'crash' })).id as string;
    const start = (command: string) => first.call('POST', `/sessions/${session}/background-tasks`, { command });
    const pids: number[] = [];
    cleanups.push(() => {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    });

    // Started first: every later task would have held its terminal open, had terminals leaked.
    const plain = await start('echo started; exec sleep 600');
    // The kind that survives a hangup: a program that ignores it, a task that traps it, a child that ignores it.
    const sleeper = await start('exec nohup sleep 600');
    const stubborn = await start("trap '' TERM HUP; echo armed; while :; do sleep 1; done");
    const orphanMaker = await start(
      "(trap '' HUP; exec sh -c 'echo child=$$ > child.pid; exec sleep 600') & while [ ! -s child.pid ]; do sleep 0.05; done; exit 0",
    );
    pids.push(plain.pid, sleeper.pid, stubborn.pid);
    await eventually(
      async () => (await outputOf(first, session, plain.id)).includes('started'),
      'the plain task to start',
    );
    await eventually(() => programOf(sleeper.pid) === 'sleep', 'nohup to have set its trap and run sleep');
    await eventually(
      async () => (await outputOf(first, session, stubborn.id)).includes('armed'),
      'the stubborn task to set its trap',
    );
    await eventually(
      async () =>
        (await first.call('GET', `/sessions/${session}/background-tasks/${orphanMaker.id}`)).task.leader_exited ===
        true,
      "the orphan maker's shell to exit",
    );
    const child = Number(/child=(\d+)/.exec(readFileSync(join(dataDir, 'child.pid'), 'utf8'))![1]);
    pids.push(child);

    await first.stop('SIGKILL');
    await eventually(() => !pidAlive(plain.pid), 'the plain task to end with the hangup');

    // A decoy outside the app, leading its own group, named by crafted records: one with its pid, one with the root cgroup.
    const decoy = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    cleanups.push(() => void decoy.kill('SIGKILL'));
    const db = new BetterSqlite3(join(dataDir, 'drover.sqlite'));
    const instance = (db.prepare("SELECT value FROM meta WHERE name = 'instance_id'").get() as { value: string }).value;
    const template = db.prepare('SELECT * FROM tasks WHERE id = ?').get(plain.id) as Record<string, unknown>;
    const insert = db.prepare(
      `INSERT INTO tasks (${Object.keys(template).join(', ')}) VALUES (${Object.keys(template)
        .map((k) => `@${k}`)
        .join(', ')})`,
    );
    insert.run({
      ...template,
      id: 'bg_900',
      seq: 900,
      pid: decoy.pid,
      pgid: decoy.pid,
      process_start: '12345',
      run_id: 'crafted',
      command: 'crafted',
      cgroup: null,
      mark: `DROVER_TASK_${instance}=bg_900`,
    });
    insert.run({
      ...template,
      id: 'bg_901',
      seq: 901,
      pid: decoy.pid,
      pgid: decoy.pid,
      run_id: 'crafted',
      command: 'crafted',
      cgroup: '/',
      mark: `DROVER_TASK_${instance}=bg_901`,
    });
    db.close();

    const second = await spawnHost(dataDir);
    cleanups.push(async () => void (await second.stop()));
    const list = await second.call('GET', `/sessions/${session}/background-tasks`);
    const byId = Object.fromEntries(list.tasks.map((task: { id: string }) => [task.id, task]));
    for (const task of [sleeper, stubborn, orphanMaker]) {
      expect(byId[task.id], `${task.command}: ${byId[task.id].exit_note}`).toMatchObject({
        status: 'orphaned',
        leftover: true,
        exit_note: 'still running from an earlier run',
      });
    }
    // Its processes are provably gone: settled once as lost, ended where Drover last saw it alive
    // (its start: the heartbeat had not come round yet), so its elapsed time no longer grows.
    expect(byId[plain.id]).toMatchObject({
      status: 'lost',
      leftover: false,
      running: false,
      exit_note: 'Drover stopped while this task ran; it is no longer running',
    });
    expect(byId[plain.id].ended_at).toBe(byId[plain.id].started_at);
    expect(byId[plain.id].elapsed_seconds).toBe(0);
    // Its number now leads another process's group, so its own group is provably gone.
    expect(byId.bg_900).toMatchObject({ status: 'lost', leftover: false });
    expect(byId.bg_901).toMatchObject({
      status: 'orphaned',
      leftover: false,
      exit_note: expect.stringMatching(/not one this Drover made/),
    });

    // Stop reaches one leftover by id; reap ends the rest.
    const stopped = await second.call('POST', `/sessions/${session}/background-tasks/${sleeper.id}/stop`);
    expect(stopped).toMatchObject({ already_settled: false, task: { status: 'stopped', leftover: false } });
    const reap = await second.call('POST', `/sessions/${session}/background-tasks/reap`);
    expect(reap.reaped.map((entry: { task_id: string }) => entry.task_id).sort()).toEqual(
      [stubborn.id, orphanMaker.id].sort(),
    );
    expect(reap.untouched.map((entry: { task_id: string }) => entry.task_id).sort()).toEqual(['bg_901']);
    expect(reap.untouched[0].reason).toMatch(/not one this Drover made/);

    for (const pid of [sleeper.pid, stubborn.pid, child]) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    for (const task of [sleeper, stubborn, orphanMaker]) expect(groupRuns(task.pid), task.command).toBe(false);
    expect(pidAlive(decoy.pid!)).toBe(true);

    const after = await second.call('GET', `/sessions/${session}/background-tasks`);
    const settled = Object.fromEntries(after.tasks.map((task: { id: string }) => [task.id, task]));
    expect(settled[stubborn.id]).toMatchObject({
      status: 'stopped',
      exit_note: expect.stringMatching(/leftover of an earlier run/),
    });
    expect(settled[plain.id]).toMatchObject({ status: 'lost', elapsed_seconds: 0 });
    // Clear takes the lost row like any finished task; rows that cannot be proven either way stay.
    const cleared = await second.call('DELETE', `/sessions/${session}/background-tasks`);
    expect(cleared.removed).toContain(plain.id);
    expect(cleared.removed).toContain('bg_900');
    expect(cleared.removed).not.toContain('bg_901');
  }, 120_000);
});
