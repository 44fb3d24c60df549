import { afterEach, describe, expect, it } from 'vitest';
import { checkSignalable, refusal, signalPid } from '../../electron/process/signal-pid.js';
import { pidAlive } from '../pool/pool-harness.js';
import { exited, killChildren, startNode } from './child-lines.js';

afterEach(killChildren);

/** Prints the pid of a grandchild it started (which stays in its group), then waits. */
const PARENT_OF_SLEEPER =
  "const c = require('child_process').spawn('sleep', ['300'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1e6);";

describe.runIf(process.platform !== 'win32')('stopping one untracked pid', () => {
  it('refuses pid 1, Drover itself, its parent and its own process group, with the reason', async () => {
    expect(refusal(1)).toMatch(/init/);
    expect(refusal(0)).toMatch(/many processes/);
    expect(refusal(process.pid)).toBe(`pid ${process.pid} is Drover itself`);
    expect(refusal(process.ppid)).toBe(`pid ${process.ppid} is the process that started Drover`);
    const sibling = await startNode("console.log('up'); setInterval(() => {}, 1e6);");
    expect(refusal(sibling.child.pid!)).toMatch(/in Drover's own process group/);
    await expect(signalPid(sibling.child.pid!, 1_000)).rejects.toMatchObject({ kind: 'refused' });
    expect(pidAlive(sibling.child.pid!)).toBe(true);
  });

  it('signals a detached process alone: it dies, the child in its group does not', async () => {
    const { child, line } = await startNode(PARENT_OF_SLEEPER, { detached: true });
    const grandchild = Number(line);
    const ended = await signalPid(child.pid!, 2_000);
    expect(ended).toEqual({ pid: child.pid, signal: 'SIGTERM' });
    expect(await exited(child)).toBe('SIGTERM');
    expect(pidAlive(grandchild)).toBe(true);
    process.kill(grandchild, 'SIGKILL');
  });

  it('kills after the grace a process that ignores SIGTERM', async () => {
    const { child } = await startNode(
      "process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1e6);",
      {
        detached: true,
      },
    );
    expect(await signalPid(child.pid!, 300)).toEqual({ pid: child.pid, signal: 'SIGKILL' });
    expect(await exited(child)).toBe('SIGKILL');
  });

  it('says no process has a pid that has exited', async () => {
    const { child } = await startNode("console.log('bye');", { detached: true });
    await exited(child);
    await expect(signalPid(child.pid!, 1_000)).rejects.toMatchObject({
      kind: 'missing',
      message: `no process has pid ${child.pid}`,
    });
  });
});

describe.runIf(process.platform === 'linux')('a pid Drover may not signal', () => {
  it('counts as alive and is reported as not permitted, never as gone', async () => {
    const target = await startNode("console.log('up'); setInterval(() => {}, 1e6);", { detached: true });
    const pid = target.child.pid!;
    // Drover as another user than the target's: as root here, a copy of it runs as nobody.
    const asRoot = process.getuid?.() === 0;
    expect(asRoot, 'this test needs root, to run the signalling side as another user').toBe(true);
    const module = new URL('../../electron/process/signal-pid.ts', import.meta.url).pathname;
    const script = `import(${JSON.stringify(module)}).then((m) => m.signalPid(${pid}, 200)).then((r) => console.log('ended', JSON.stringify(r)), (e) => console.log(e.kind + ': ' + e.message));`;
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      uid: 65_534,
      gid: 65_534,
      encoding: 'utf8',
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, HOME: '/tmp', TSX_DISABLE_CACHE: '1' },
      timeout: 30_000,
    });
    expect(run.stdout.trim(), run.stderr).toBe(
      `denied: pid ${pid} is running but not permitted to be signalled by Drover`,
    );
    expect(pidAlive(pid)).toBe(true);
  });
});

describe.runIf(process.platform === 'linux')('a pinned pid', () => {
  it('is ended only while it names the process that was checked', async () => {
    const first = await startNode("console.log('up'); setInterval(() => {}, 1e6);", { detached: true });
    const pinned = checkSignalable(first.child.pid!);
    expect(pinned.start).toMatch(/^\d+$/);
    // Another process's start time: as if the pid had been reused since the check.
    await expect(signalPid(first.child.pid!, 500, { start: '1' })).rejects.toMatchObject({
      kind: 'missing',
      message: expect.stringContaining('the pid now names another process, which was left alone'),
    });
    expect(pidAlive(first.child.pid!)).toBe(true);
    expect(await signalPid(first.child.pid!, 2_000, pinned)).toEqual({ pid: first.child.pid, signal: 'SIGTERM' });
  });
});
