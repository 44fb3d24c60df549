import { afterEach, describe, expect, it } from 'vitest';
import { refusal, signalPid } from '../../electron/process/signal-pid.js';
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
