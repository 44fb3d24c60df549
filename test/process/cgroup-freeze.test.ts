import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Cgroups } from '../../electron/process/cgroup.js';
import { tempDir } from '../helpers.js';

/**
 * A cgroup folder made of plain files, so the test decides when the kernel would report the freeze
 * done ("frozen 1" in cgroup.events). The member is a real process, so the signal is real.
 */
function fakeCgroup(pid: number): { cgroups: Cgroups; dir: string } {
  const mount = tempDir('drover-cgfreeze-');
  const dir = join(mount, 'task');
  mkdirSync(dir);
  writeFileSync(join(dir, 'cgroup.procs'), `${pid}\n`);
  writeFileSync(join(dir, 'cgroup.freeze'), '0');
  writeFileSync(join(dir, 'cgroup.events'), 'populated 1\nfrozen 0\n');
  return { cgroups: new Cgroups({ mount, mountRoot: '/' }), dir };
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function sleeper(): Promise<ChildProcess> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));

describe('signalling a cgroup while it is frozen, without holding the event loop', () => {
  it('waits for the freeze between turns of the event loop, signals once frozen, then thaws', async () => {
    const child = await sleeper();
    const { cgroups, dir } = fakeCgroup(child.pid!);
    const ended = exited(child);
    // A limit far beyond the test's run: only "frozen 1" lets the signal go.
    const signalled = cgroups.signalAsync('/task', 'SIGTERM', 60_000);
    let settled = false;
    void signalled.then(() => (settled = true));
    // The event loop turns while the freeze is awaited: timers run, and nothing has been signalled yet.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(settled).toBe(false);
    expect(readFileSync(join(dir, 'cgroup.freeze'), 'utf8')).toBe('1');
    expect(child.exitCode === null && child.signalCode === null).toBe(true);
    writeFileSync(join(dir, 'cgroup.events'), 'populated 1\nfrozen 1\n');
    expect(await signalled).toEqual([child.pid]);
    expect(await ended).toBe('SIGTERM');
    expect(readFileSync(join(dir, 'cgroup.freeze'), 'utf8')).toBe('0');
  });

  it('signals anyway once the wait runs out (a member that never freezes), and thaws', async () => {
    const child = await sleeper();
    const { cgroups, dir } = fakeCgroup(child.pid!);
    const ended = exited(child);
    expect(await cgroups.signalAsync('/task', 'SIGTERM', 20)).toEqual([child.pid]);
    expect(await ended).toBe('SIGTERM');
    expect(readFileSync(join(dir, 'cgroup.freeze'), 'utf8')).toBe('0');
  });

  it('does not freeze for SIGCONT, which only wakes what is there', async () => {
    const child = await sleeper();
    const { cgroups, dir } = fakeCgroup(child.pid!);
    writeFileSync(join(dir, 'cgroup.freeze'), 'untouched');
    expect(await cgroups.signalAsync('/task', 'SIGCONT', 60_000)).toEqual([child.pid]);
    expect(readFileSync(join(dir, 'cgroup.freeze'), 'utf8')).toBe('untouched');
  });
});
