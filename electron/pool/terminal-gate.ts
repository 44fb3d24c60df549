import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesWaiting, makeFifo, rawOutputNewlines } from './os-fds.js';

/** How long a gate waits for its shell to take the line before it looks again, at most. */
const GATE_POLL_MAX_MS = 100;

/**
 * A task's terminal has to stop turning LF into CR LF before its command prints anything, or the
 * log would not hold the bytes the program wrote. `stty -onlcr` does it at the cost of a fork
 * and an exec in every terminal task's start (about 1.3 ms here, a third of a whole spawn).
 * Instead the shell waits at a gate: a named pipe it reads one line from before its command
 * (containers.ts, AWAIT_GATE). Drover changes the terminal itself (tcsetattr, os-fds.ts) right
 * after the spawn, then writes the line: the shell goes on with the terminal already raw, and
 * nothing could be printed before.
 *
 * The pipes live in a folder of this process's own (mode 0700, in the system temp folder),
 * each removed once its line is taken or its task's shell is gone; the folder goes at exit.
 * Where any of this cannot be done (no libc calls, another terminal layout), gates are not
 * offered and tasks fall back to `stty`.
 */
/** The folder of this process's gates, made on first need (one for every runner in the process). */
let folder: string | null = null;
function gateFolder(): string {
  if (folder) return folder;
  const made = mkdtempSync(join(tmpdir(), 'drover-gates-'));
  folder = made;
  process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  return made;
}

export class TerminalGates {
  readonly #log: (message: string) => void;
  #unavailable: string | null = process.platform === 'win32' ? 'Windows terminals have no such translation' : null;
  #count = 0;

  constructor(log: (message: string) => void) {
    this.#log = log;
  }

  /** A new gate for a task about to start on a terminal, or null (then its shell runs `stty`). */
  open(taskId: string): TerminalGate | null {
    if (this.#unavailable) return null;
    try {
      const path = join(gateFolder(), `${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}-${++this.#count}`);
      const problem = makeFifo(path);
      if (problem) throw new Error(problem);
      // Read-write: opening never waits for a reader, and the line stays buffered until the shell opens its end.
      let fd: number;
      try {
        fd = openSync(path, 'r+');
      } catch (error) {
        unlinkSync(path);
        throw error;
      }
      return new TerminalGate(path, fd, (problem) => this.#giveUp(problem));
    } catch (error) {
      this.#giveUp((error as Error).message);
      return null;
    }
  }

  #giveUp(problem: string): void {
    if (this.#unavailable) return;
    this.#unavailable = problem;
    this.#log(`task terminals are made raw with stty from now on (${problem})`);
  }
}

export class TerminalGate {
  readonly path: string;
  readonly #fd: number;
  readonly #failed: (problem: string) => void;
  #closed = false;
  #timer: NodeJS.Timeout | null = null;

  constructor(path: string, fd: number, failed: (problem: string) => void) {
    this.path = path;
    this.#fd = fd;
    this.#failed = failed;
  }

  /**
   * Makes the terminal at `terminalFd` raw and lets the shell through. The pipe is kept until the
   * shell has taken the line (or `gone` says it never will): closed earlier, the line would be lost.
   */
  release(terminalFd: number | null, gone: () => boolean): void {
    if (this.#closed) return;
    const problem = terminalFd === null ? 'the terminal could not be reached' : rawOutputNewlines(terminalFd);
    // The shell goes on either way: on a terminal left as it was, its output has CR LF line ends.
    if (problem) this.#failed(problem);
    try {
      writeSync(this.#fd, '\n');
    } catch {
      this.close();
      return;
    }
    let pause = 1;
    const look = () => {
      this.#timer = null;
      if (this.#closed) return;
      // Taken (nothing waits), or never to be; when it cannot be told, only the shell's end closes it.
      if (bytesWaiting(this.#fd) === 0 || gone()) {
        this.close();
        return;
      }
      pause = Math.min(pause * 2, GATE_POLL_MAX_MS);
      this.#timer = setTimeout(look, pause);
    };
    look();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    try {
      closeSync(this.#fd);
    } catch {
      /* already closed */
    }
    try {
      unlinkSync(this.path);
    } catch {
      /* removed with its folder */
    }
  }
}
