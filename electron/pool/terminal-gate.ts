import {
  closeSync,
  constants as fsConstants,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendSignal } from '../process/unix-os.js';
import { bytesWaiting, makeFifo, rawOutputNewlines, terminalCallsProblem } from './os-fds.js';

/** How long a gate waits for its shell to take the line before it looks again, at most. */
const GATE_POLL_MAX_MS = 100;
/** The prefix of every process's gate folder; its pid and a random part follow, so a folder whose process is gone can be removed. */
const FOLDER_PREFIX = 'drover-gates-';

/**
 * A task's terminal has to stop turning LF into CR LF before its command prints anything, or the
 * log would not hold the bytes the program wrote. `stty -onlcr` does it at the cost of a fork
 * and an exec in every terminal task's start (about 1.3 ms here, a third of a whole spawn).
 * Instead the shell waits at a gate: a named pipe it reads one line from before its command
 * (containers.ts, AWAIT_GATE). Drover changes the terminal itself (tcsetattr, os-fds.ts) right
 * after the spawn, then writes an empty line: the shell goes on with the terminal already raw,
 * and nothing could be printed before. Where the terminal could not be changed the line says
 * `stty`, and the shell runs it itself, so that task is raw all the same.
 *
 * The pipes live in a folder of this process's own (`drover-gates-<pid>-XXXXXX`, mode 0700, in the
 * system temp folder; made again if it is removed or replaced), each removed once its line is
 * taken or its task's shell is gone; the folder goes at exit, and a later Drover of the same user
 * removes those whose process has died. Where gates
 * cannot work at all (no libc calls, no known terminal layout), none are offered and tasks run
 * `stty`; a gate that cannot be made for one task (a full folder, no descriptors left) sends
 * only that task to `stty`.
 */
export class TerminalGates {
  readonly #log: (message: string) => void;
  #unavailable: string | null = process.platform === 'win32' ? 'Windows terminals have no such translation' : null;

  constructor(log: (message: string) => void) {
    this.#log = log;
  }

  /** A new gate for a task about to start on a terminal, or null (then its shell runs `stty`). */
  open(taskId: string): TerminalGate | null {
    if (this.#unavailable) return null;
    const problem = terminalCallsProblem();
    if (problem) {
      this.#giveUp(problem);
      return null;
    }
    try {
      return openGate(taskId, (failure) => this.#giveUp(failure));
    } catch {
      // Only this task runs stty (a full temp folder, no descriptors left); the next one tries again.
      return null;
    }
  }

  /** Gates cannot work here (or a terminal could not be changed): later tasks are sent to `stty` at once. */
  #giveUp(problem: string): void {
    if (this.#unavailable) return;
    this.#unavailable = problem;
    this.#log(`task terminals are made raw with stty from now on (${problem})`);
  }
}

/** This process's gate folder, and what it was when made (a folder replaced under the same name is not ours). */
let folder: { path: string; ino: number } | null = null;
let made = 0;
/** Every folder this process made, removed at exit. */
const madeFolders = new Set<string>();
let exitHooked = false;

/**
 * This process's gate folder: made on first need with a name nobody can guess
 * (`drover-gates-<pid>-XXXXXX`, mode 0700), and made anew if it was removed or replaced.
 */
function gateFolder(): string {
  if (folder && stillOurs(folder)) return folder.path;
  const base = tmpdir();
  if (!folder) sweepDeadFolders(base);
  const path = mkdtempSync(join(base, `${FOLDER_PREFIX}${process.pid}-`));
  folder = { path, ino: lstatSync(path).ino };
  madeFolders.add(path);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const made of madeFolders) rmSync(made, { recursive: true, force: true });
    });
  }
  return path;
}

function stillOurs(current: { path: string; ino: number }): boolean {
  try {
    const info = lstatSync(current.path);
    return info.isDirectory() && info.ino === current.ino && ownedByUs(info.uid);
  } catch {
    return false;
  }
}

function ownedByUs(uid: number): boolean {
  return typeof process.getuid !== 'function' || uid === process.getuid();
}

/**
 * Removes the gate folders of this user's processes that are gone (a Drover that crashed or was
 * killed). Another user's folder, anything not a folder, and what cannot be removed are left.
 */
function sweepDeadFolders(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  const ours = new RegExp(`^${FOLDER_PREFIX}(\\d+)-`);
  for (const name of names) {
    const match = ours.exec(name);
    const pid = match ? Number(match[1]) : 0;
    if (!(pid > 0) || pid === process.pid || sendSignal(pid, 0) !== 'missing') continue;
    const path = join(base, name);
    try {
      const info = lstatSync(path);
      if (info.isDirectory() && ownedByUs(info.uid)) rmSync(path, { recursive: true, force: true });
    } catch {
      /* not ours to remove, or gone already */
    }
  }
}

function openGate(taskId: string, failed: (problem: string) => void): TerminalGate {
  const path = join(gateFolder(), `${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}-${++made}`);
  const problem = makeFifo(path);
  if (problem) throw new Error(problem);
  const fds: number[] = [];
  try {
    // Read-write: opening never waits for the shell, and the line stays buffered until it reads it.
    fds.push(openSync(path, fsConstants.O_RDWR));
    // A read-only end to ask how much is waiting: on macOS a read-write FIFO answers for its write side (always 0).
    fds.push(openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK));
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    unlinkSync(path);
    throw error;
  }
  return new TerminalGate(path, fds[0]!, fds[1]!, failed);
}

export class TerminalGate {
  readonly path: string;
  readonly #fd: number;
  readonly #reader: number;
  readonly #failed: (problem: string) => void;
  #closed = false;
  #timer: NodeJS.Timeout | null = null;

  constructor(path: string, fd: number, reader: number, failed: (problem: string) => void) {
    this.path = path;
    this.#fd = fd;
    this.#reader = reader;
    this.#failed = failed;
  }

  /**
   * Makes the terminal at `terminalFd` raw and lets the shell through; where that fails, the line
   * tells the shell to run `stty` itself (and later tasks go to `stty` at once). The pipe is kept until the
   * shell has taken the line (or `gone` says it never will): closed earlier, the line would be lost.
   */
  release(terminalFd: number | null, gone: () => boolean): void {
    if (this.#closed) return;
    const problem = terminalFd === null ? 'the terminal could not be reached' : rawOutputNewlines(terminalFd);
    if (problem) this.#failed(problem);
    try {
      writeSync(this.#fd, problem ? 'stty\n' : '\n');
    } catch {
      this.close();
      return;
    }
    let pause = 1;
    const look = () => {
      this.#timer = null;
      if (this.#closed) return;
      // Taken (nothing waits), or never to be; when it cannot be told, only the shell's end closes it.
      if (bytesWaiting(this.#reader) === 0 || gone()) {
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
    // Unlinked first: a shell opening it from now on fails at once instead of waiting for a writer.
    try {
      unlinkSync(this.path);
    } catch {
      /* removed with its folder */
    }
    for (const fd of [this.#fd, this.#reader]) {
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
  }
}
