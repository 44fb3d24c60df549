import { accessSync, closeSync, constants as fsConstants, existsSync, openSync, statSync } from 'node:fs';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import { setCloseOnExec } from '../process/cloexec.js';
import type { ContainerFactory, TaskContainer } from '../process/containers.js';
import { isCmd } from '../process/containers-windows.js';
import { explainForkFailure } from '../process/fork-failure.js';
import { LEGACY_MARK_VARIABLE } from '../process/identity.js';
import { KILL_CONFIRM_MS, waitUntil } from '../process/leftovers-unix.js';
import { within } from './live-task.js';
import {
  StartError,
  StuckError,
  type Runner,
  type RunnerExit,
  type RunnerHandle,
  type RunnerListener,
  type Spec,
  type StopReport,
} from './runner.js';
import { taskEnvironment } from './task-env.js';
import { TERMINAL_COLUMNS, TERMINAL_ROWS } from './terminal-text.js';

/** How often a task whose leader exited is checked for its last processes. */
export const SURVIVOR_POLL_MS = 200;
/** How often a stop looks at whether the task is gone. */
const STOP_POLL_MS = 50;

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

/**
 * Git settings every task gets on top of the person's own (GIT_CONFIG_COUNT adds to any already
 * given): `safe.bareRepository=explicit`, so a bare repository planted inside a project (its config
 * can name an fsmonitor or a diff program) is never picked up by a plain `git status` run there;
 * a real one is still used with `--git-dir`.
 */
export function gitSafety(env: NodeJS.ProcessEnv): Record<string, string> {
  const given = Number(env.GIT_CONFIG_COUNT ?? 0);
  const count = Number.isInteger(given) && given >= 0 ? given : 0;
  return {
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: 'safe.bareRepository',
    [`GIT_CONFIG_VALUE_${count}`]: 'explicit',
  };
}

export interface CommandRunnerOptions {
  /** How each task's processes are held together (a cgroup, a process group, a job). */
  containers: ContainerFactory;
  shell?: string;
  baseEnv?: NodeJS.ProcessEnv;
  /** Variable names the person passes to tasks on purpose, read at each start (`tasks.passEnvironment`). */
  passEnvironment?: () => readonly string[];
  /** Secrets Drover reads from its environment (the provider keys): kept from tasks. */
  secretVariables?: readonly string[];
  /** The OS identity of the leader (its start time), recorded so a later run can prove it. */
  identify?: (pid: number) => string | null;
  /** A process's state in words, for the error when SIGKILL does not take. */
  processState?: (pid: number) => string | null;
  log?: (message: string) => void;
}

/**
 * Runs a command through the user's shell under a pseudo-terminal. The shell leads a new
 * session and process group, and starts inside the task's container before the command runs.
 */
export class CommandRunner implements Runner {
  readonly #shell: string;
  readonly #baseEnv: NodeJS.ProcessEnv;
  readonly #pass: () => readonly string[];
  readonly #secrets: readonly string[];
  readonly #identify: (pid: number) => string | null;
  readonly #state: (pid: number) => string | null;
  readonly #containers: ContainerFactory;
  readonly #log: (message: string) => void;
  #cloexecWarned = false;

  constructor(options: CommandRunnerOptions) {
    this.#containers = options.containers;
    this.#baseEnv = options.baseEnv ?? process.env;
    this.#pass = options.passEnvironment ?? (() => []);
    this.#secrets = options.secretVariables ?? [];
    this.#identify = options.identify ?? (() => null);
    this.#state = options.processState ?? (() => null);
    this.#log = options.log ?? ((message) => console.error(`drover: ${message}`));
    this.#shell = options.shell ?? defaultShell(this.#baseEnv);
  }

  async start(spec: Spec, listener: RunnerListener): Promise<RunnerHandle> {
    checkCwd(spec.cwd);
    const env: Record<string, string> = {
      ...taskEnvironment(this.#baseEnv, { pass: this.#pass(), secrets: this.#secrets }),
      ...spec.env,
      ...NON_INTERACTIVE_ENV,
      ...gitSafety(this.#baseEnv),
      [LEGACY_MARK_VARIABLE]: spec.taskId,
      [spec.mark.variable]: spec.mark.value,
    };
    const container = this.#containers.create(spec.taskId, spec.mark);
    const launch = container.wrap(this.#shell, shellArgs(this.#shell, spec.command));
    let pty: IPty;
    try {
      pty = spawnPty(launch.file, launch.args, {
        name: 'xterm-256color',
        cols: TERMINAL_COLUMNS,
        rows: TERMINAL_ROWS,
        cwd: spec.cwd,
        env,
        encoding: null,
      } as Parameters<typeof spawnPty>[2]);
    } catch (error) {
      container.dispose();
      const message = (error as Error).message;
      throw new StartError(`could not start ${this.#shell}: ${/fork/i.test(message) ? explainForkFailure() : message}`);
    }
    this.#closeOnExec(pty);
    const handle = new PtyHandle(pty, listener, container, this.#identify(pty.pid), this.#state);
    try {
      await container.attach(
        pty.pid,
        () => handle.leaderGone,
        (data) => pty.write(data),
      );
    } catch (error) {
      await handle.abort();
      throw new StartError((error as Error).message);
    }
    return handle;
  }

  /** node-pty leaves the terminal master inheritable; every task started later would hold it. */
  #closeOnExec(pty: IPty): void {
    const fd = (pty as unknown as { _fd?: unknown })._fd;
    if (typeof fd !== 'number') return;
    const problem = setCloseOnExec(fd);
    if (problem && !this.#cloexecWarned) {
      this.#cloexecWarned = true;
      this.#log(
        `task terminals cannot be made close-on-exec (${problem}); later tasks may inherit earlier tasks' terminals`,
      );
    }
  }
}

class PtyHandle implements RunnerHandle {
  readonly pid: number;
  readonly processStartedAt: string | null;
  readonly containment: RunnerHandle['containment'];
  readonly cgroup: string | null;
  readonly containmentNote: string | null;
  readonly #pty: IPty;
  readonly #container: TaskContainer;
  readonly #state: (pid: number) => string | null;
  readonly #done: Promise<RunnerExit>;
  #leaderExit: RunnerExit | null = null;
  #settled = false;

  constructor(
    pty: IPty,
    listener: RunnerListener,
    container: TaskContainer,
    processStartedAt: string | null,
    state: (pid: number) => string | null,
  ) {
    this.#pty = pty;
    this.#container = container;
    this.#state = state;
    this.pid = pty.pid;
    this.processStartedAt = processStartedAt;
    this.containment = container.kind;
    this.cgroup = container.cgroup;
    this.containmentNote = container.note;
    const slaveFd = holdTerminalOpen(pty);
    pty.onData((data) => listener.output(typeof data === 'string' ? Buffer.from(data) : (data as Buffer)));
    if (listener.members) container.watchMembers?.(listener.members);
    this.#done = new Promise((resolve) => {
      pty.onExit(({ exitCode, signal }) => {
        if (slaveFd !== null) closeSync(slaveFd);
        this.#leaderExit = { exitCode: signal ? null : exitCode, signal: signal || null };
        // The task runs until its last process has ended, not just its shell.
        let told = false;
        const settleWhenEmpty = () => {
          if (this.#emptySafely()) {
            this.#settled = true;
            this.#container.dispose();
            resolve(this.#leaderExit!);
            return;
          }
          if (!told) {
            told = true;
            listener.leaderExited();
          }
          setTimeout(settleWhenEmpty, SURVIVOR_POLL_MS).unref();
        };
        settleWhenEmpty();
      });
    });
  }

  /** Whether nothing of the task is left; a question that could not be answered counts as "not yet". */
  #emptySafely(): boolean {
    try {
      return this.#container.isEmpty();
    } catch {
      return false;
    }
  }

  /** The shell has exited (the task may still have other processes). */
  get leaderGone(): boolean {
    return this.#leaderExit !== null;
  }

  wait(): Promise<RunnerExit> {
    return this.#done;
  }

  async stop(graceMs: number): Promise<StopReport> {
    const outside = new Set<number>();
    if (this.#settled) return { outside: [] };
    const gone = () => this.#settled || (this.#leaderExit !== null && this.#emptySafely());
    let gentle: number[] | null;
    try {
      gentle = this.#container.terminate();
    } catch {
      gentle = []; // some may have been asked to end; SIGKILL below still comes
    }
    if (gentle) {
      for (const pid of gentle) outside.add(pid);
      await waitUntil(gone, graceMs, STOP_POLL_MS);
    }
    if (!gone()) {
      try {
        for (const pid of this.#container.kill()) outside.add(pid);
      } finally {
        // On Windows the console host and its agent go with the terminal.
        if (process.platform === 'win32') this.#pty.kill();
      }
    }
    const ended = async () => (await within(this.#done, KILL_CONFIRM_MS)) !== null;
    if (!(await ended())) {
      const members = this.#container.members();
      // With nothing left in its container the end is on its way; if even that does not come, the leader is what hangs.
      if (members.length === 0 && (await ended())) return { outside: [...outside] };
      throw new StuckError(
        (members.length > 0 ? members : [this.pid]).map((pid) => ({ pid, state: this.#state(pid) })),
        KILL_CONFIRM_MS,
      );
    }
    return { outside: [...outside] };
  }

  /** A start that failed after the shell was spawned: end whatever began, and release the container. */
  async abort(): Promise<void> {
    try {
      this.#container.kill();
    } catch {
      /* the terminal's hangup below still ends the shell */
    }
    try {
      this.#pty.kill(process.platform === 'win32' ? undefined : 'SIGKILL');
    } catch {
      /* already gone */
    }
    await within(this.#done, KILL_CONFIRM_MS);
    this.#container.dispose();
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
  if (process.platform === 'win32' && isCmd(shell)) return ['/d', '/s', '/c', command];
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

/** After a task ends: whether its working directory went away while it ran (worth saying on its row). */
export function cwdVanished(cwd: string): boolean {
  return !existsSync(cwd);
}
