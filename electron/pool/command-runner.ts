import { execFileSync } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { ContainerFactory, TaskContainer } from '../process/containers.js';
import { isCmd } from '../process/containers-windows.js';
import { explainForkFailure } from '../process/fork-failure.js';
import { LEGACY_MARK_VARIABLE } from '../process/identity.js';
import { lowerPriority } from '../process/priority.js';
import { sessionGroupsApply, taskCpuMicros, TaskWeigher } from '../process/task-weight.js';
import { linuxStat } from '../process/unix-os.js';
import { PipeRunner } from './pipe-runner.js';
import { TaskProcessHandle, type LeaderIo } from './process-handle.js';
import { PtyRunner } from './pty-runner.js';
import type { TerminalGate } from './terminal-gate.js';
import { StartError, type Runner, type RunnerHandle, type RunnerListener, type Spec } from './runner.js';
import { taskEnvironment } from './task-env.js';

export { SURVIVOR_POLL_MS } from './process-handle.js';
export { TERMINAL_ENV } from './pty-runner.js';
export { PIPE_ENV } from './pipe-runner.js';

/** Variables that keep a task from blocking on a pager or an editor nobody will see. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
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
  /** Wraps a sandboxed task's shell in its session's sandbox; absent, a task asking for one fails to start. */
  sandbox?: SandboxWrapper;
  /** The nice value a task starting now runs at (`background.taskNice`); absent or 0: Drover's own. */
  taskNice?: () => number;
  /** Whether busy tasks share one program's CPU weight on Linux (`background.shareTaskCpu`; process/task-weight.ts); absent: off. */
  shareTaskCpu?: () => boolean;
}

/** What puts a command inside its session's sandbox: the program and arguments to run instead, and the variables they need. */
export interface SandboxWrapper {
  wrap(request: {
    sessionId: string;
    taskId: string;
    command: string;
    shell: string;
    cwd: string;
  }): Promise<{ file: string; args: string[]; env: Record<string, string> }>;
}

/** What a runner hands the shared start: how to spawn the wrapped shell, and the variables its kind of output needs. */
export interface ShellSpawn {
  /** The shell runs on a pseudo-terminal (not on pipes). */
  terminal: boolean;
  /** Variables on top of the task's (TERMINAL_ENV or PIPE_ENV). */
  env: Readonly<Record<string, string>>;
  /** Variables of the task's environment that would lie about its output (COLORTERM without a terminal). */
  drop?: readonly string[];
  spawn(launch: { file: string; args: string[] }, env: Record<string, string>, cwd: string): LeaderIo;
  /** Terminals: a gate the shell waits at while Drover makes the terminal raw (null: it runs `stty`). */
  gate?: (taskId: string) => TerminalGate | null;
}

/**
 * What every command task shares however its output is carried: the user's shell, its
 * environment, its container, and the wait for its last process. The shell leads a new session
 * and process group, and starts inside the task's container before the command runs.
 */
export class ShellLauncher {
  readonly shell: string;
  readonly log: (message: string) => void;
  readonly #baseEnv: NodeJS.ProcessEnv;
  readonly #pass: () => readonly string[];
  readonly #secrets: readonly string[];
  readonly #identify: (pid: number) => string | null;
  readonly #state: (pid: number) => string | null;
  readonly #containers: ContainerFactory;
  readonly #sandbox: SandboxWrapper | undefined;
  readonly #taskNice: () => number;
  /** The session groups of running tasks, where the scheduler weighs sessions (Linux autogroup). */
  readonly #weigher: TaskWeigher | null;
  /**
   * Whether the scheduler weighs tasks' sessions here, asked of the first task's shell: every task
   * sits beside it (their cgroups share their parents), so the answer holds for the run.
   */
  #sessionGroups: boolean | undefined;
  /** Whether a failure to lower a task's priority was logged this run (it is said once). */
  #priorityWarned = false;
  #folds: boolean | undefined;

  constructor(options: CommandRunnerOptions) {
    this.#containers = options.containers;
    this.#sandbox = options.sandbox;
    this.#taskNice = options.taskNice ?? (() => 0);
    this.#baseEnv = options.baseEnv ?? process.env;
    this.#pass = options.passEnvironment ?? (() => []);
    this.#secrets = options.secretVariables ?? [];
    this.#identify = options.identify ?? (() => null);
    this.#state = options.processState ?? (() => null);
    this.log = options.log ?? ((message) => console.error(`drover: ${message}`));
    this.#weigher =
      process.platform === 'linux'
        ? new TaskWeigher({ floor: this.#taskNice, share: options.shareTaskCpu ?? (() => false), log: this.log })
        : null;
    this.shell = options.shell ?? defaultShell(this.#baseEnv);
  }

  async start(spec: Spec, listener: RunnerListener, how: ShellSpawn): Promise<RunnerHandle> {
    checkCwd(spec.cwd);
    const env: Record<string, string> = {
      ...taskEnvironment(this.#baseEnv, { pass: this.#pass(), secrets: this.#secrets }),
      ...spec.env,
    };
    for (const name of how.drop ?? []) delete env[name];
    Object.assign(env, NON_INTERACTIVE_ENV, how.env, gitSafety(this.#baseEnv), {
      [LEGACY_MARK_VARIABLE]: spec.taskId,
      [spec.mark.variable]: spec.mark.value,
    });
    // A sandboxed task: the sandbox's program (bubblewrap, sandbox-exec) runs the shell, inside the
    // task's container like any shell, so stop and reap are unchanged.
    const inner = spec.sandboxed
      ? await this.#sandboxed(spec)
      : { file: this.shell, args: shellArgs(this.shell, spec.command), env: {} };
    Object.assign(env, inner.env);
    const container = await this.#containers.create(spec.taskId, spec.mark);
    const gate = how.terminal ? (how.gate?.(spec.taskId) ?? null) : null;
    const nice = this.#taskNice();
    let launch: { file: string; args: string[] };
    try {
      launch = container.wrap(inner.file, inner.args, {
        terminal: how.terminal,
        fold: !spec.sandboxed && this.#shellFolds() && !runsOwnCodeFirst(env),
        ...(gate ? { gate: gate.path } : {}),
      });
    } catch (error) {
      gate?.close();
      await container.dispose();
      throw error;
    }
    let io: LeaderIo;
    try {
      io = how.spawn(launch, env, spec.cwd);
    } catch (error) {
      gate?.close();
      await container.dispose();
      const message = (error as Error).message;
      throw new StartError(`could not start ${this.shell}: ${/fork/i.test(message) ? explainForkFailure() : message}`);
    }
    // At once, while the shell is still starting: what it starts inherits the lower priority.
    if (nice > 0) this.#lower(io.pid, nice);
    const handle = new TaskProcessHandle(io, listener, container, this.#identify(io.pid), this.#state);
    gate?.release(io.terminalFd?.() ?? null, () => handle.leaderGone);
    try {
      await container.attach(
        io.pid,
        () => handle.leaderGone,
        (data) => io.write(data),
      );
    } catch (error) {
      await handle.abort();
      throw new StartError((error as Error).message);
    }
    // Anything the shell started before it was lowered is inside its cgroup by now: lowered too.
    if (nice > 0) for (const pid of container.enclosed?.() ?? []) if (pid !== io.pid) this.#lower(pid, nice);
    this.#weigh(spec, io.pid, container, handle);
    return handle;
  }

  /**
   * Hands the task's session group to the weigher, until the task has ended. Not a sandboxed one:
   * the sandbox (bubblewrap) runs its command in a session of its own, which its shell does not lead.
   */
  #weigh(spec: Spec, leader: number, container: TaskContainer, handle: TaskProcessHandle): void {
    if (this.#weigher === null || spec.sandboxed || !this.#weighsSessions(leader)) return;
    const untrack = this.#weigher.track({
      leader,
      cpuMicros: () => taskCpuMicros(leader, container.cgroup),
      via: () => {
        const own = handle.processStartedAt === null || this.#identify(leader) === handle.processStartedAt;
        if (!handle.leaderGone && own) return leader;
        // A session keeps its id while any process is in it, so no other session can have it.
        for (const pid of container.enclosed?.() ?? []) if (Number(linuxStat(pid)?.[3]) === leader) return pid;
        return null;
      },
    });
    void handle.wait().then(untrack, untrack);
  }

  #weighsSessions(leader: number): boolean {
    if (this.#sessionGroups !== undefined) return this.#sessionGroups;
    const answer = sessionGroupsApply(leader);
    // A "no" from a shell already gone only means its files could not be read: asked again next time.
    if (answer || linuxStat(leader) !== null) this.#sessionGroups = answer;
    return answer;
  }

  #lower(pid: number, nice: number): void {
    const problem = lowerPriority(pid, nice);
    if (problem === null || this.#priorityWarned) return;
    this.#priorityWarned = true;
    this.log(`${problem}; such tasks run at Drover's own priority (said once per run)`);
  }

  /**
   * Whether the shell can do the container's work itself, ahead of the command (containers.ts,
   * foldedCommand): bash 5.1 or newer, which still execs the command in place of itself when
   * something comes before it. Older bash, dash (whose versions differ here) and other shells
   * (zsh reads .zshenv before its script) keep the `sh` stage. Asked once, of the shell itself.
   */
  #shellFolds(): boolean {
    this.#folds ??= bashFolds(this.shell);
    return this.#folds;
  }

  async #sandboxed(spec: Spec): Promise<{ file: string; args: string[]; env: Record<string, string> }> {
    if (!this.#sandbox || !spec.sessionId) throw new StartError('it was to run in the sandbox, and none is available');
    try {
      return await this.#sandbox.wrap({
        sessionId: spec.sessionId,
        taskId: spec.taskId,
        command: spec.command,
        shell: this.shell,
        cwd: spec.cwd,
      });
    } catch (error) {
      throw new StartError(`the sandbox could not be prepared: ${(error as Error).message}`);
    }
  }
}

/**
 * Runs a command through the user's shell, in a pseudo-terminal or on pipes as its spec asks
 * (`tty`; absent: a terminal, what every task had before pipes existed).
 */
export class CommandRunner implements Runner {
  readonly #pty: PtyRunner;
  readonly #pipe: PipeRunner;

  constructor(options: CommandRunnerOptions) {
    const launcher = new ShellLauncher(options);
    this.#pty = new PtyRunner(launcher);
    this.#pipe = new PipeRunner(launcher);
  }

  start(spec: Spec, listener: RunnerListener): Promise<RunnerHandle> {
    return spec.tty === false ? this.#pipe.start(spec, listener) : this.#pty.start(spec, listener);
  }
}

/** bash 5.1 or newer (BASH_VERSINFO), asked with an empty environment so nothing of the person's runs. */
export function bashFolds(shell: string): boolean {
  if (process.platform === 'win32' || basename(shell) !== 'bash') return false;
  try {
    const out = execFileSync(shell, ['-c', 'echo "${BASH_VERSINFO[0]} ${BASH_VERSINFO[1]}"'], {
      env: {},
      encoding: 'utf8',
      timeout: 5_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [major, minor] = out.trim().split(' ').map(Number);
    return major! > 5 || (major === 5 && minor! >= 1);
  } catch {
    return false;
  }
}

/**
 * What makes bash run something of the environment's before its script: a startup file
 * (BASH_ENV), exported functions (`BASH_FUNC_name%%`, which could stand in for `echo` or `read`),
 * options that would trace the work into the output (SHELLOPTS, BASHOPTS). Then the stage does it.
 */
export function runsOwnCodeFirst(env: Readonly<Record<string, string>>): boolean {
  return Object.keys(env).some(
    (name) => name === 'BASH_ENV' || name === 'SHELLOPTS' || name === 'BASHOPTS' || name.startsWith('BASH_FUNC_'),
  );
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
