import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, until } from '../helpers.js';
import { spawnHost } from '../host/spawn-host.js';
import { linuxOs } from '../../electron/process/unix-os.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Every process now in a group, read from ps the way a person would check. */
function groupMembers(pgid: number): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid!);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('leftovers after a crash (real processes, kill -9)', () => {
  it('finds what survived, reaps it group and all, and never touches a decoy', async () => {
    const dataDir = tempDir();
    const first = await spawnHost(dataDir);
    cleanups.push(() => void first.stop('SIGKILL'));
    const session = (await first.call('POST', '/sessions', { title: 'crash' })).id as string;
    const start = (command: string) => first.call('POST', `/sessions/${session}/background-tasks`, { command });

    // A terminal hangs up its tasks when Drover dies: these three are the kind that survive it.
    const sleeper = await start('nohup sleep 600');
    const stubborn = await start("trap '' TERM HUP; echo armed; while :; do sleep 1; done");
    // The leader waits a moment so the child has set its trap before the leader's exit hangs up the group.
    const orphanMaker = await start("(trap '' HUP; exec sleep 600) & echo child=$!; sleep 0.5; exit 0");
    // An ordinary task ends with the hangup and must not be listed as a leftover.
    const plain = await start('sleep 600');
    const groups = [sleeper, stubborn, orphanMaker, plain].map((task) => task.pid as number);
    cleanups.push(() => {
      for (const pgid of groups) {
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    });
    await until(() => groupMembers(orphanMaker.pid).length > 0 && groupMembers(stubborn.pid).length > 0, 'the tasks to start');
    // Past the orphan maker's leader exit: only its child is left in the group.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    await first.stop('SIGKILL');
    await until(() => groupMembers(plain.pid).length === 0, 'the plain task to end with the hangup', 5_000);

    // A decoy outside the app, leading its own group, whose pid is written into a crafted stale record.
    const decoy = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    cleanups.push(() => void decoy.kill('SIGKILL'));
    const db = new BetterSqlite3(join(dataDir, 'drover.sqlite'));
    const template = db.prepare('SELECT * FROM tasks WHERE id = ?').get(plain.id) as Record<string, unknown>;
    db.prepare(
      `INSERT INTO tasks (${Object.keys(template).join(', ')}) VALUES (${Object.keys(template).map((k) => `@${k}`).join(', ')})`,
    ).run({ ...template, id: 'bg_900', seq: 900, pid: decoy.pid, pgid: decoy.pid, process_start: '12345', run_id: 'crafted', command: 'crafted' });
    db.close();

    const second = await spawnHost(dataDir);
    cleanups.push(async () => void (await second.stop()));
    const list = await second.call('GET', `/sessions/${session}/background-tasks`);
    const byId = Object.fromEntries(list.tasks.map((task: { id: string }) => [task.id, task]));
    for (const task of [sleeper, stubborn, orphanMaker]) {
      expect(byId[task.id], `${task.command}: ${byId[task.id].exit_note}`).toMatchObject({ status: 'orphaned', leftover: true, exit_note: 'still running from an earlier run' });
    }
    expect(byId[plain.id]).toMatchObject({ status: 'orphaned', leftover: false });
    expect(byId.bg_900).toMatchObject({ status: 'orphaned', leftover: false });

    // The group probe alone would be fooled: the decoy leads a group with that number.
    expect(linuxOs().signalGroup(decoy.pid!, 0)).toBe('ok');

    // Stop reaches one leftover by id; reap ends the rest.
    const stopped = await second.call('POST', `/sessions/${session}/background-tasks/${sleeper.id}/stop`);
    expect(stopped).toMatchObject({ already_settled: false, task: { status: 'stopped', leftover: false } });
    const reap = await second.call('POST', `/sessions/${session}/background-tasks/reap`);
    expect(reap.reaped.map((entry: { task_id: string }) => entry.task_id).sort()).toEqual([stubborn.id, orphanMaker.id].sort());
    expect(reap.untouched.map((entry: { task_id: string }) => entry.task_id).sort()).toEqual(['bg_900', plain.id].sort());
    expect(reap.untouched.find((entry: { task_id: string }) => entry.task_id === 'bg_900').reason).toMatch(/another process/);

    for (const task of [sleeper, stubborn, orphanMaker]) expect(groupMembers(task.pid), task.command).toEqual([]);
    expect(alive(decoy.pid!)).toBe(true);

    const after = await second.call('GET', `/sessions/${session}/background-tasks`);
    const settled = Object.fromEntries(after.tasks.map((task: { id: string }) => [task.id, task]));
    expect(settled[stubborn.id]).toMatchObject({ status: 'stopped', exit_note: expect.stringMatching(/leftover of an earlier run/) });
  }, 60_000);
});
