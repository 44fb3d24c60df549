// Runs on Windows only (see vitest.config.ts): the real Win32 calls behind the leftover logic.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { windowsInspector } from '../../electron/process/inspector.js';
import { probeWindows, reapWindows } from '../../electron/process/leftovers.js';
import { win32Os } from '../../electron/process/windows-os.js';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => children.splice(0).forEach((child) => child.kill()));

function longRunning() {
  const child = spawn('ping', ['-n', '60', '127.0.0.1'], { stdio: 'ignore', windowsHide: true });
  children.push(child);
  return child;
}

describe('Windows process identity (real Win32 through koffi)', () => {
  const os = win32Os();
  const inspector = windowsInspector(os);

  it('records a creation time, finds the running process, and probes repeatably', () => {
    const child = longRunning();
    const { processStart } = inspector.identify(child.pid!);
    expect(processStart).toMatch(/^\d{15,}$/);
    const identity = { taskId: 'bg_1', pid: child.pid!, pgid: null, processStart, bootId: null };
    expect(probeWindows(identity, os)).toEqual({ alive: true });
    expect(probeWindows(identity, os)).toEqual({ alive: true });
  });

  it('reports a killed process whose handle is still open as not alive', async () => {
    const child = longRunning();
    const { processStart } = inspector.identify(child.pid!);
    const held = os.open(child.pid!)!;
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
    try {
      expect(probeWindows({ taskId: 'bg_2', pid: child.pid!, pgid: null, processStart, bootId: null }, os)).toMatchObject({ alive: false });
    } finally {
      os.close(held);
    }
  });

  it('refuses a creation time the record does not describe and kills nothing; kills the right one', async () => {
    const child = longRunning();
    const wrong = { taskId: 'bg_3', pid: child.pid!, pgid: null, processStart: '1', bootId: null };
    expect(await reapWindows(wrong, os)).toMatchObject({ ended: [], refused: expect.any(String) });
    expect(child.exitCode).toBeNull();
    const right = { ...wrong, processStart: inspector.identify(child.pid!).processStart };
    const exited = new Promise((resolve) => child.once('exit', resolve));
    expect(await reapWindows(right, os)).toMatchObject({ refused: null });
    await exited;
  });
});
