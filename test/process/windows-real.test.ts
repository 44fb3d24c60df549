// Runs on Windows only (see vitest.config.ts): the real Win32 calls behind the leftover and job logic.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { windowsInspector } from '../../electron/process/inspector.js';
import { probeWindows, reapWindows } from '../../electron/process/leftovers-windows.js';
import { windowsContainers } from '../../electron/process/containers-windows.js';
import { markFor, type ProcessIdentity } from '../../electron/process/identity.js';
import { win32Os } from '../../electron/process/windows-os.js';
import { CommandRunner } from '../../electron/pool/command-runner.js';

const INSTANCE = 'win000000000';
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => children.splice(0).forEach((child) => child.kill()));

function longRunning() {
  const child = spawn('ping', ['-n', '60', '127.0.0.1'], { stdio: 'ignore', windowsHide: true });
  children.push(child);
  return child;
}

const identityOf = (pid: number, processStart: string | null, taskId = 'bg_1'): ProcessIdentity => ({
  taskId,
  pid,
  pgid: null,
  processStart,
  bootId: null,
  mark: null,
  cgroup: null,
  members: [],
});

describe('Windows process identity (real Win32 through koffi)', () => {
  const os = win32Os();
  const inspector = windowsInspector(os, INSTANCE);

  it('records a creation time, finds the running process, and probes repeatably', () => {
    const child = longRunning();
    const { processStart } = inspector.identify(child.pid!);
    expect(processStart).toMatch(/^\d{15,}$/);
    const identity = identityOf(child.pid!, processStart);
    expect(probeWindows(identity, os, INSTANCE)).toEqual({ alive: true });
    expect(probeWindows(identity, os, INSTANCE)).toEqual({ alive: true });
  });

  it('reports a killed process whose handle is still open as not alive', async () => {
    const child = longRunning();
    const { processStart } = inspector.identify(child.pid!);
    const held = os.open(child.pid!, 'query');
    if (held === 'missing' || held === 'denied') throw new Error(`could not open ${child.pid}: ${held}`);
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
    try {
      expect(probeWindows(identityOf(child.pid!, processStart, 'bg_2'), os, INSTANCE)).toMatchObject({ alive: false });
    } finally {
      os.close(held);
    }
  });

  it('says "missing" for a pid no process has, and lists processes with their parents', () => {
    expect(os.open(0x7ffffff0, 'query')).toBe('missing');
    const child = longRunning();
    expect(os.processes().some((entry) => entry.pid === child.pid && entry.parentPid === process.pid)).toBe(true);
  });

  it('refuses a creation time the record does not describe and ends nothing; ends the right one', async () => {
    const child = longRunning();
    const wrong = identityOf(child.pid!, '1', 'bg_3');
    expect(reapWindows(wrong, os, INSTANCE)).toMatchObject({ ended: [], refused: expect.any(String) });
    expect(child.exitCode).toBeNull();
    const right = { ...wrong, processStart: inspector.identify(child.pid!).processStart };
    const exited = new Promise((resolve) => child.once('exit', resolve));
    expect(reapWindows(right, os, INSTANCE)).toMatchObject({ refused: null });
    await exited;
  });

  it('runs a task in a job object and stops the whole tree', async () => {
    const runner = new CommandRunner({
      containers: windowsContainers(os, (pid) => inspector.identify(pid).processStart),
    });
    const output: Buffer[] = [];
    const handle = await runner.start(
      {
        kind: 'command',
        taskId: 'bg_9',
        command: 'ping -n 60 127.0.0.1',
        cwd: tmpdir(),
        env: {},
        mark: markFor('win000000000', 'bg_9'),
      },
      { output: (chunk) => output.push(chunk), leaderExited: () => undefined },
    );
    expect(handle.containment).toBe('job');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await handle.stop(1_000);
    await handle.wait();
    expect(Buffer.concat(output).toString()).toMatch(/127\.0\.0\.1/);
  }, 30_000);
});
