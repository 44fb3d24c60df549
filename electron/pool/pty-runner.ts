import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import { setCloseOnExec } from '../process/cloexec.js';
import type { ShellLauncher } from './command-runner.js';
import { bytesWaiting } from './os-fds.js';
import { TerminalGates } from './terminal-gate.js';
import type { LeaderIo } from './process-handle.js';
import type { RunnerExit, RunnerHandle, RunnerListener, Spec } from './runner.js';
import { TERMINAL_COLUMNS, TERMINAL_ROWS } from './terminal-text.js';

/** A task in a terminal: the emulator that shows it (and renders its log) understands all of this. */
export const TERMINAL_ENV: Readonly<Record<string, string>> = {
  TERM: 'xterm-256color',
  COLORTERM: 'truecolor',
};

/** Runs a task's shell under a pseudo-terminal (@lydell/node-pty): what the operator's own lines get. */
export class PtyRunner {
  readonly #launcher: ShellLauncher;
  readonly #gates: TerminalGates;
  #cloexecWarned = false;

  constructor(launcher: ShellLauncher) {
    this.#launcher = launcher;
    this.#gates = new TerminalGates((message) => launcher.log(message));
  }

  start(spec: Spec, listener: RunnerListener): Promise<RunnerHandle> {
    return this.#launcher.start(spec, listener, {
      terminal: true,
      env: TERMINAL_ENV,
      gate: (taskId) => this.#gates.open(taskId),
      spawn: (launch, env, cwd) => {
        const pty = spawnPty(launch.file, launch.args, {
          name: 'xterm-256color',
          cols: TERMINAL_COLUMNS,
          rows: TERMINAL_ROWS,
          cwd,
          env,
          encoding: null,
        } as Parameters<typeof spawnPty>[2]);
        this.#closeOnExec(pty);
        return new PtyIo(pty);
      },
    });
  }

  /** node-pty leaves the terminal master inheritable; every task started later would hold it. */
  #closeOnExec(pty: IPty): void {
    const fd = (pty as unknown as { _fd?: unknown })._fd;
    if (typeof fd !== 'number') return;
    const problem = setCloseOnExec(fd);
    if (problem && !this.#cloexecWarned) {
      this.#cloexecWarned = true;
      this.#launcher.log(
        `task terminals cannot be made close-on-exec (${problem}); later tasks may inherit earlier tasks' terminals`,
      );
    }
  }
}

class PtyIo implements LeaderIo {
  readonly pid: number;
  readonly #pty: IPty;
  #slaveFd: number | null;

  constructor(pty: IPty) {
    this.#pty = pty;
    this.pid = pty.pid;
    this.#slaveFd = holdTerminalOpen(pty);
    if (this.#slaveFd !== null) this.#letGoAtExit();
  }

  /**
   * The far end we hold open (holdTerminalOpen) keeps the terminal from reporting its end, and
   * node-pty then reports the exit only when its fallback timer (200 ms) destroys the terminal:
   * every task would end 200 ms late. node-pty marks the moment its native exit arrives
   * (`_boundClose`, set once, in @lydell/node-pty 1.1); from then we let go of our end as soon as
   * nothing the task wrote waits unread, and the terminal ends as it would without us.
   * Without that mark (another node-pty), the exit comes 200 ms late, as before.
   */
  #letGoAtExit(): void {
    const target = this.#pty as unknown as Record<string, unknown>;
    const own = Object.getOwnPropertyDescriptor(target, '_boundClose');
    if (!own || own.value !== false || !own.writable) return;
    let value: unknown = false;
    Object.defineProperty(target, '_boundClose', {
      configurable: true,
      get: () => value,
      set: (next: unknown) => {
        value = next;
        if (next === true) this.#releaseWhenRead(0);
      },
    });
  }

  /** Closes our end once the master has nothing unread, twice in a row (bytes may be on their way to it). */
  #releaseWhenRead(zeroes: number): void {
    if (this.#slaveFd === null) return;
    const master = (this.#pty as unknown as { _fd?: unknown })._fd;
    const waiting = typeof master === 'number' ? bytesWaiting(master) : null;
    if (waiting === null) return;
    if (waiting === 0 && zeroes >= 1) {
      this.#closeSlave();
      return;
    }
    setTimeout(() => this.#releaseWhenRead(waiting === 0 ? zeroes + 1 : 0), 1);
  }

  #closeSlave(): void {
    if (this.#slaveFd === null) return;
    closeSync(this.#slaveFd);
    this.#slaveFd = null;
  }

  /** The terminal's own end where we hold it (its modes are its own on every OS), else the master. */
  terminalFd(): number | null {
    if (this.#slaveFd !== null) return this.#slaveFd;
    const fd = (this.#pty as unknown as { _fd?: unknown })._fd;
    return typeof fd === 'number' ? fd : null;
  }

  onData(listener: (chunk: Buffer) => void): void {
    // With `encoding: null` node-pty hands over the Buffer it read: passed on as it is, never copied.
    this.#pty.onData((data) => listener(typeof data === 'string' ? Buffer.from(data) : (data as Buffer)));
  }

  onExit(listener: (exit: RunnerExit) => void): void {
    this.#pty.onExit(({ exitCode, signal }) => {
      this.#closeSlave();
      listener({ exitCode: signal ? null : exitCode, signal: signal || null });
    });
  }

  /** node-pty reads the last bytes before it reports the exit (see holdTerminalOpen): nothing is in transit. */
  finish(): Promise<void> {
    return Promise.resolve();
  }

  pause(): void {
    this.#pty.pause();
  }

  resume(): void {
    this.#pty.resume();
  }

  write(data: string): void {
    this.#pty.write(data);
  }

  killLeader(): void {
    this.#pty.kill(process.platform === 'win32' ? undefined : 'SIGKILL');
  }

  /** On Windows the console host and its agent go with the terminal. */
  killExtra(): void {
    if (process.platform === 'win32') this.#pty.kill();
  }
}

/**
 * On Linux the last output of a command that exits right after printing it (more than 4 KiB)
 * can be lost: the terminal's far end closes with bytes still unread, and the read gives EIO
 * (node-pty issues #72 and #726). Holding our own descriptor on that end until node-pty reports
 * the exit keeps the bytes readable; node-pty reads them in the moments before it closes.
 * (Opened close-on-exec, like every descriptor Node opens, so no task inherits it.)
 */
function holdTerminalOpen(pty: IPty): number | null {
  const slavePath = (pty as unknown as { _pty?: unknown })._pty;
  if (process.platform === 'win32' || typeof slavePath !== 'string' || !slavePath.startsWith('/dev/')) return null;
  try {
    return openSync(slavePath, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
  } catch {
    return null;
  }
}
