import { describe, expect, it } from 'vitest';
import { GroupContainer } from '../../electron/process/containers.js';
import { markFor } from '../../electron/process/identity.js';
import { FakeUnix } from './fake-os.js';

const mark = markFor('aaaaaaaaaaaa', 'bg_1');

describe('the process-group fallback (fake process table)', () => {
  it('never signals its group number again once the group has gone, even while an escapee keeps the task', async () => {
    const os = new FakeUnix()
      .add({ pid: 500, pgid: 500, start: '1', env: { [mark.variable]: 'bg_1' } })
      .add({ pid: 700, pgid: 700, start: '2', env: { [mark.variable]: 'bg_1' } });
    const container = new GroupContainer(os, mark);
    await container.attach(500, () => false);
    os.processes.delete(500);
    expect(container.isEmpty()).toBe(false);
    // The number is free; another program now leads a group with it.
    os.add({ pid: 500, pgid: 500, start: '99', env: {} });
    expect(await container.terminate()).toEqual([700]);
    container.kill();
    expect(os.signals.filter((signal) => signal.startsWith('-500'))).toEqual([]);
    expect(os.processes.has(500)).toBe(true);
  });

  it('takes a scan that could not run for "not empty", and a stop still signals what it can', async () => {
    const os = new FakeUnix().add({
      pid: 500,
      pgid: 500,
      start: '1',
      env: { [mark.variable]: 'bg_1' },
      stubborn: true,
    });
    const container = new GroupContainer(os, mark);
    await container.attach(500, () => false);
    os.broken = '/bin/ps could not fork';
    expect(container.isEmpty()).toBe(false);
    await expect(container.terminate()).resolves.toBeDefined();
    expect(() => container.kill()).not.toThrow();
    expect(os.signals).toContain('-500:SIGKILL');
  });
});

describe("how a task's shell is launched in its process group", () => {
  const container = new GroupContainer(new FakeUnix(), mark);
  const gateWork =
    'read -r drover_gate < "$1"; shift; [ -z "$drover_gate" ] || stty -onlcr 2>/dev/null; unset drover_gate';

  it('puts the work on a line of its own before the command when the shell can do it itself', () => {
    expect(container.wrap('/bin/bash', ['-c', 'npm test'], { terminal: true, fold: true })).toEqual({
      file: '/bin/bash',
      args: ['-c', 'stty -onlcr 2>/dev/null\nnpm test', '/bin/bash'],
    });
    expect(
      container.wrap('/bin/bash', ['-c', 'npm test'], { terminal: true, fold: true, gate: '/tmp/g/bg_1-1' }),
    ).toEqual({ file: '/bin/bash', args: ['-c', `${gateWork}\nnpm test`, '/bin/bash', '/tmp/g/bg_1-1'] });
  });

  it('otherwise runs the work in an sh stage that execs the shell; the gate is $1 there too', () => {
    expect(container.wrap('/usr/bin/zsh', ['-c', 'x'], { terminal: true, gate: '/tmp/g/bg_1-1' })).toEqual({
      file: '/bin/sh',
      args: ['-c', `${gateWork}; exec "$@"`, 'drover-task', '/tmp/g/bg_1-1', '/usr/bin/zsh', '-c', 'x'],
    });
    const staged = (file: string, args: string[]) => ({
      file: '/bin/sh',
      args: ['-c', 'stty -onlcr 2>/dev/null; exec "$@"', 'drover-task', file, ...args],
    });
    expect(container.wrap('/bin/bash', ['-c', 'x'], { terminal: true })).toEqual(staged('/bin/bash', ['-c', 'x']));
    // Arguments other than `-c <command>` are never folded into.
    expect(container.wrap('/usr/bin/bwrap', ['--', 'x'], { terminal: true, fold: true })).toEqual(
      staged('/usr/bin/bwrap', ['--', 'x']),
    );
  });

  it('starts a shell on pipes as it is: nothing to enter, no terminal to set', () => {
    expect(container.wrap('/usr/bin/zsh', ['-c', 'x'], { terminal: false })).toEqual({
      file: '/usr/bin/zsh',
      args: ['-c', 'x'],
    });
  });
});
