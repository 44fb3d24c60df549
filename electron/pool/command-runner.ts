import { execFile } from 'node:child_process';
import { accessSync, closeSync, constants as fsConstants, openSync, statSync } from 'node:fs';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import { groupAlive, signalGroup } from './process-group.js';
import { TASK_MARK_VARIABLE } from '../process/identity.js';
import type { WindowsOs } from '../process/windows-os.js';
import { StartError, type OutputSink, type Runner, type RunnerExit, type RunnerHandle, type Spec } from './runner.js';
import { TERMINAL_COLUMNS, TERMINAL_ROWS } from './terminal-text.js';

/** How often a group that outlived its leader is checked for emptiness. */
export const SURVIVOR_POLL_MS = 200;

/** Variables that keep a task from blocking on a pager or an editor nobody will see. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  TERM: 'xterm-256color',
  COLORTERM: 'truecolor',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: '',
  // `false` exits 1 at once, so `git commit` without -m fails instead of waiting forever.
  EDITOR: 'false',
  VISUAL: 'false',
  GIT_EDITOR: 'false',
};


export interface CommandRunnerOptions {
  shell?: string;
  baseEnv?: NodeJS.ProcessEnv;
  /** The OS identity of the leader (its start time), recorded so a later run can prove it. */
  identify?: (pid: number) => string | null;
  /** Windows: job objects, so a task's whole tree can be ended even when parent links are stale. */
  windows?: WindowsOs;
}

/**
 * Runs a command through the user's shell under a pseudo-terminal. The shell is the leader
 * of a new session and process group, so the whole tree can be signalled as one.
 */
export class CommandRunner implements Runner {
  readonly #shell: string;
  readonly #baseEnv: NodeJS.ProcessEnv;
  readonly #identify: (pid: number) => string | null;
  readonly #windows: WindowsOs | undefined;

  constructor(options: CommandRunnerOptions = {}) {
    this.#windows = options.windows;
    this.#baseEnv = options.baseEnv ?? process.env;
    this.#identify = options.identify ?? (() => null);
    this.#shell = options.shell ?? defaultShell(this.#baseEnv);
  }

  async start(spec: Spec, onOutput: OutputSink): Promise<RunnerHandle> {
    checkCwd(spec.cwd);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.#baseEnv)) if (value !== undefined) env[key] = value;
    Object.assign(env, spec.env, NON_INTERACTIVE_ENV, { [TASK_MARK_VARIABLE]: spec.taskId });

    let pty: IPty;
    try {
      pty = spawnPty(this.#shell, shellArgs(this.#shell, spec.command), {
        name: 'xterm-256color',
        cols: TERMINAL_COLUMNS,
        rows: TERMINAL_ROWS,
        cwd: spec.cwd,
        env,
        encoding: null,
      } as Parameters<typeof spawnPty>[2]);
    } catch (error) {
      throw new StartError(`could not start ${this.#shell}: ${(error as Error).message}`);
    }
    return new PtyHandle(pty, onOutput, this.#identify(pty.pid), this.#windows ? windowsJob(this.#windows, pty.pid) : null);
  }
}

class PtyHandle implements RunnerHandle {
  readonly pid: number;
  readonly processStartedAt: string | null;
  readonly #pty: IPty;
  readonly #done: Promise<RunnerExit>;
  #leaderExit: RunnerExit | null = null;
  #settled = false;

  readonly #job: WindowsJob | null;

  constructor(pty: IPty, onOutput: OutputSink, processStartedAt: string | null, job: WindowsJob | null) {
    this.#pty = pty;
    this.#job = job;
    this.pid = pty.pid;
    this.processStartedAt = processStartedAt;
    const slaveFd = holdTerminalOpen(pty);
    pty.onData((data) => onOutput(typeof data === 'string' ? Buffer.from(data) : (data as Buffer)));
    this.#done = new Promise((resolve) => {
      pty.onExit(({ exitCode, signal }) => {
        if (slaveFd !== null) closeSync(slaveFd);
        this.#job?.close();
        this.#leaderExit = { exitCode: signal ? null : exitCode, signal: signal || null };
        // The group can outlive its leader (a child that ignored SIGHUP); the task runs until it is empty.
        const settleWhenEmpty = () => {
          if (!groupAlive(this.pid)) {
            this.#settled = true;
            resolve(this.#leaderExit!);
          } else setTimeout(settleWhenEmpty, SURVIVOR_POLL_MS);
        };
        settleWhenEmpty();
      });
    });
  }

  wait(): Promise<RunnerExit> {
    return this.#done;
  }

  async stop(graceMs: number): Promise<void> {
    if (this.#settled) return;
    if (process.platform === 'win32') {
      // No signals or groups: end the job (the whole tree), then the tree by parent links, then the console.
      this.#job?.terminate();
      await killTree(this.pid);
      this.#pty.kill();
      await this.#done;
      return;
    }
    signalGroup(this.pid, 'SIGTERM');
    // A stopped (SIGSTOP'd) process never acts on SIGTERM until it is continued.
    signalGroup(this.pid, 'SIGCONT');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      if (this.#settled || !groupAlive(this.pid)) break;
      await delay(Math.min(50, Math.max(1, deadline - Date.now())));
    }
    if (!this.#settled && groupAlive(this.pid)) signalGroup(this.pid, 'SIGKILL');
    await this.#done;
  }

  pause(): void {
    this.#pty.pause();
  }

  resume(): void {
    this.#pty.resume();
  }

  write(data: string): void {
    if (!this.#leaderExit) this.#pty.write(data);
  }
}

/**
 * On Linux the last output of a command that exits right after printing it (more than 4 KiB)
 * can be lost: the terminal's far end closes with bytes still unread, and the read gives EIO
 * (node-pty issues #72 and #726). Holding our own descriptor on that end until node-pty reports
 * the exit keeps the bytes readable; node-pty reads them in the moments before it closes.
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

interface WindowsJob {
  terminate(): void;
  close(): void;
}

function windowsJob(os: WindowsOs, pid: number): WindowsJob | null {
  try {
    const job = os.createJob();
    if (!job) return null;
    if (!os.assignToJob(job, pid)) {
      os.closeJob(job);
      return null;
    }
    return { terminate: () => void os.terminateJob(job), close: () => os.closeJob(job) };
  } catch {
    return null;
  }
}

function killTree(pid: number): Promise<void> {
  return new Promise((resolve) => execFile('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true }, () => resolve()));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function defaultShell(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return env.ComSpec || 'cmd.exe';
  const shell = env.SHELL;
  if (shell && shell.startsWith('/')) {
    try {
      accessSync(shell, fsConstants.X_OK);
      return shell;
    } catch {
      /* fall through to /bin/sh */
    }
  }
  return '/bin/sh';
}

function shellArgs(shell: string, command: string): string[] {
  if (process.platform === 'win32' && /cmd(\.exe)?$/i.test(shell)) return ['/d', '/s', '/c', command];
  return ['-c', command];
}

/** A bad working directory is a start failure with a reason, not a task that dies later. */
function checkCwd(cwd: string): void {
  let info;
  try {
    info = statSync(cwd);
  } catch {
    throw new StartError(`the working directory does not exist: ${cwd}`);
  }
  if (!info.isDirectory()) throw new StartError(`the working directory is not a directory: ${cwd}`);
  try {
    accessSync(cwd, fsConstants.X_OK);
  } catch {
    throw new StartError(`permission denied entering the working directory: ${cwd}`);
  }
}
