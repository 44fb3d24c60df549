import { describe, expect, it } from 'vitest';
import { GATE_KEY, JobContainer, START_GATE } from '../../electron/process/containers-windows.js';
import type { WindowsMember } from '../../electron/process/identity.js';
import { FakeWindows } from './fake-os.js';

/** A console that starts cmd.exe: cmd runs its command at once, unless the command waits at the start gate. */
function startCmd(os: FakeWindows, args: readonly string[], runCommand: () => void): { pid: number; waiting: boolean } {
  os.spawn(4000, 1);
  const waiting = args.at(-1)!.startsWith(START_GATE);
  if (!waiting) runCommand();
  return { pid: 4000, waiting };
}

describe('Windows job per task (fake Win32)', () => {
  const identify = (os: FakeWindows) => (pid: number) => os.table.get(pid)?.created ?? null;

  it('holds the shell at a gate until its job is assigned, so even an immediate child is in the job', async () => {
    const os = new FakeWindows();
    const container = new JobContainer(os, identify(os));
    const launch = container.wrap('C:\\Windows\\System32\\cmd.exe', ['/d', '/s', '/c', 'server.exe --port 3000']);
    expect(launch.args).toEqual(['/d', '/s', '/c', `${START_GATE}server.exe --port 3000`]);
    const shell = startCmd(os, launch.args, () => os.spawn(4100, 4000));
    expect(shell.waiting).toBe(true);
    await container.attach(
      shell.pid,
      () => false,
      (data) => {
        if (data === GATE_KEY) os.spawn(4100, 4000);
      },
    );
    expect(container.kind).toBe('job');
    expect(container.members().sort()).toEqual([4000, 4100]);
    container.kill();
    expect(os.table.get(4100)!.exited).toBe(true);
    container.dispose();
  });

  it('shows why: assigned after the shell started, an early child escapes the job', async () => {
    const os = new FakeWindows();
    os.spawn(4000, 1);
    os.spawn(4100, 4000);
    const job = os.createJob();
    os.assignToJob(job, 4000);
    expect(os.jobProcessIds(job)).toEqual([4000]);
  });

  it('says so on the row when the shell is not cmd.exe and cannot be gated', () => {
    const os = new FakeWindows();
    const container = new JobContainer(os, identify(os));
    expect(container.wrap('C:\\Program Files\\PowerShell\\7\\pwsh.exe', ['-c', 'x']).args).toEqual(['-c', 'x']);
    expect(container.note).toMatch(/not cmd.exe/);
  });

  it('records the processes of its job as they appear, with their creation times', async () => {
    const os = new FakeWindows();
    const container = new JobContainer(os, identify(os));
    const launch = container.wrap('cmd.exe', ['/d', '/s', '/c', 'build']);
    const shell = startCmd(os, launch.args, () => undefined);
    await container.attach(
      shell.pid,
      () => false,
      () => undefined,
    );
    const seen: (readonly WindowsMember[])[] = [];
    container.watchMembers((members) => seen.push(members));
    const child = os.spawn(4100, 4000);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(seen.at(-1)).toEqual([
      { pid: 4000, created: os.table.get(4000)!.created },
      { pid: 4100, created: child.created },
    ]);
    container.dispose();
  });

  it('falls back to the proven tree, and says so, when no job can be joined', async () => {
    const os = new FakeWindows();
    os.assignToJob = () => false;
    const container = new JobContainer(os, identify(os));
    const launch = container.wrap('cmd.exe', ['/d', '/s', '/c', 'x']);
    let opened = false;
    const shell = startCmd(os, launch.args, () => undefined);
    await container.attach(
      shell.pid,
      () => false,
      () => (opened = true),
    );
    expect(container.kind).toBe('tree');
    expect(container.note).toMatch(/could not join a job object/);
    expect(opened).toBe(true);
    os.spawn(4100, 4000);
    container.kill();
    expect(os.terminated.sort()).toEqual([4000, 4100]);
  });
});
