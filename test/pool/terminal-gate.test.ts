import { spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { osPipe } from '../../electron/pool/os-fds.js';
import { TerminalGates } from '../../electron/pool/terminal-gate.js';
import { logText, makePool, type Harness } from './pool-harness.js';
import { until } from '../helpers.js';

const open: Harness[] = [];
const terminals: IPty[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
  for (const terminal of terminals.splice(0)) terminal.kill('SIGKILL');
});

const cwd = tmpdir();

/** A real terminal (its master's descriptor), running `command`. */
function terminal(command: string): { fd: number; pty: IPty } {
  const pty = spawnPty('/bin/sh', ['-c', command], { cols: 80, rows: 24, cwd, env: {} });
  terminals.push(pty);
  return { fd: (pty as unknown as { _fd: number })._fd, pty };
}

/** What `stty -a` says of LF → CR LF on the terminal at a master's descriptor, read through a second shell on it. */
function onlcr(pty: IPty): Promise<string> {
  const slave = (pty as unknown as { _pty: string })._pty;
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', `stty -a < '${slave}' | grep -o -- '-\\?onlcr'`], { stdio: 'pipe' });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', () => resolve(out.trim()));
  });
}

describe.runIf(process.platform === 'linux')('terminal gates', () => {
  for (const containment of ['auto', 'group'] as const) {
    it(`a terminal task (${containment}) starts with its terminal already raw, and its gate is gone once passed`, async () => {
      const h = makePool({}, undefined, { containment, shell: '/bin/bash' });
      open.push(h);
      const { pool, sessionId } = h;
      // The first bytes are written at once: with the translation still on they would read "x\r\ny\r\n".
      const task = await pool.start({
        sessionId,
        command: `printf 'x\\ny\\n'; tr '\\0' '\\n' < /proc/$$/cmdline; echo done`,
        cwd,
        tty: true,
      });
      expect((await pool.waitFor(task.id, 10_000))?.status).toBe('succeeded');
      const log = readFileSync(task.logPath, 'latin1');
      expect(log.startsWith('x\ny\n')).toBe(true);
      expect(log).not.toContain('\r');
      // The shell's last argument is its gate: a named pipe in Drover's own folder, removed once taken.
      const args = log.split('\n');
      const gate = args[args.indexOf('done') - 1]!;
      expect(gate).toMatch(new RegExp(`/drover-gates-${process.pid}-[^/]+/bg_\\d+-\\d+$`));
      expect(statSync(gate.slice(0, gate.lastIndexOf('/'))).mode & 0o777).toBe(0o700);
      await until(() => !existsSync(gate), 'the gate to be removed');
    });
  }

  it('lets the shell through once the terminal is raw, and removes the pipe', async () => {
    const log: string[] = [];
    const gates = new TerminalGates((message) => log.push(message));
    const { fd, pty } = terminal('sleep 30');
    expect(await onlcr(pty)).toBe('onlcr');
    const gate = gates.open('bg_1')!;
    expect(statSync(gate.path).isFIFO()).toBe(true);
    const shell = spawn('/bin/sh', ['-c', 'read -r _ < "$1"; echo through', 'gate', gate.path], { stdio: 'pipe' });
    let out = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // Held at the gate until it is released.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(out).toBe('');
    gate.release(fd, () => false);
    await until(() => out === 'through\n', 'the shell to pass the gate');
    expect(await onlcr(pty)).toBe('-onlcr');
    await until(() => !existsSync(gate.path), 'the pipe to be removed');
    expect(log).toEqual([]);
  });

  it('closes a gate whose shell is gone without taking it', async () => {
    const gates = new TerminalGates(() => {});
    const { fd } = terminal('sleep 30');
    const gate = gates.open('bg_2')!;
    let gone = false;
    gate.release(fd, () => gone);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(gate.path)).toBe(true);
    gone = true;
    await until(() => !existsSync(gate.path), 'the unused gate to be removed');
  });

  it('falls back to stty, saying so once, when the terminal cannot be changed; the waiting shell still goes on', async () => {
    const log: string[] = [];
    const gates = new TerminalGates((message) => log.push(message));
    const gate = gates.open('bg_3')!;
    const shell = spawn('/bin/sh', ['-c', 'read -r _ < "$1"; echo through', 'gate', gate.path], { stdio: 'pipe' });
    let out = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // A pipe is no terminal: tcgetattr refuses it.
    const pipe = osPipe();
    gate.release(pipe.read, () => false);
    await until(() => out === 'through\n', 'the shell to pass the gate');
    expect(log).toEqual([
      expect.stringMatching(/task terminals are made raw with stty from now on \(tcgetattr failed\)/),
    ]);
    expect(gates.open('bg_4')).toBeNull();
    expect(log).toHaveLength(1);
    closeSync(pipe.read);
    closeSync(pipe.write);
  });
});

describe.runIf(process.platform === 'linux')('terminal gates when the terminal cannot be changed', () => {
  it("that task's shell runs stty itself, so its output is raw all the same", async () => {
    const gates = new TerminalGates(() => {});
    const gate = gates.open('bg_5')!;
    // The work a task's shell does before its command (containers.ts), on a real terminal.
    const work =
      'read -r drover_gate < "$1"; shift; [ -z "$drover_gate" ] || stty -onlcr 2>/dev/null; unset drover_gate';
    const pty = spawnPty('/bin/sh', ['-c', `${work}; printf 'a\\nb\\n'; echo "[$drover_gate]"`, 'x', gate.path], {
      cols: 80,
      rows: 24,
      cwd,
      env: {},
    });
    terminals.push(pty);
    let out = '';
    pty.onData((data) => (out += data));
    const exited = new Promise((resolve) => pty.onExit(resolve));
    const pipe = osPipe();
    gate.release(pipe.read, () => false);
    await exited;
    expect(out).toBe('a\nb\n[]\n');
    closeSync(pipe.read);
    closeSync(pipe.write);
  });

  it("removes the gate folders of this user's processes that are gone, never those of live ones or what is no folder", async () => {
    const dead = join(tmpdir(), 'drover-gates-2147483640-abcdef');
    const live = join(tmpdir(), `drover-gates-${process.ppid}-abcdef`);
    const notFolder = join(tmpdir(), 'drover-gates-2147483641-file');
    mkdirSync(dead, { recursive: true });
    mkdirSync(live, { recursive: true });
    writeFileSync(notFolder, 'x');
    try {
      vi.resetModules();
      const fresh = await import('../../electron/pool/terminal-gate.js');
      const gate = new fresh.TerminalGates(() => {}).open('bg_6')!;
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(notFolder)).toBe(true);
      gate.close();
    } finally {
      for (const path of [dead, live, notFolder]) rmSync(path, { recursive: true, force: true });
    }
  });

  it('makes a new folder when its own was removed or replaced, and never uses the replacement', () => {
    const gates = new TerminalGates(() => {});
    const first = gates.open('bg_7')!;
    const folder = first.path.slice(0, first.path.lastIndexOf('/'));
    first.close();
    // A temp cleaner removes it, and another user makes a folder of that name.
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { mode: 0o777 });
    if (process.getuid?.() === 0) chownSync(folder, 1234, 1234);
    try {
      const second = gates.open('bg_8')!;
      expect(second.path.startsWith(`${folder}/`)).toBe(false);
      expect(statSync(second.path).isFIFO()).toBe(true);
      second.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('a terminal task whose shell keeps the sh stage', () => {
  it('waits at the gate in the stage, and starts raw', async () => {
    const h = makePool({}, undefined, {
      shell: '/bin/bash',
      baseEnv: { ...process.env, BASH_ENV: '/dev/null' },
    });
    open.push(h);
    const task = await h.pool.start({ sessionId: h.sessionId, command: "printf 'p\\nq\\n'", cwd, tty: true });
    await h.pool.waitFor(task.id, 10_000);
    expect(logText(task.logPath)).toBe('p\nq\n');
  });
});
