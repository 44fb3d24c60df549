import type { TaskKind } from '../../shared/schemas/task.js';
import type { Containment, Mark, WindowsMember } from '../process/identity.js';

/** What to run. The pool knows nothing of shells; a Runner gives a Spec meaning. */
export interface Spec {
  kind: TaskKind;
  taskId: string;
  command: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Carried by every process the task starts, so even one that leaves its container is found. */
  mark: Mark;
  /**
   * Commands: whether the shell gets a pseudo-terminal (colours, prompts, `test -t 1` true) or
   * pipes (plain text, stdout and stderr merged in order). Absent: a terminal.
   */
  tty?: boolean;
  /** Commands: run inside the session's sandbox (the runner's sandbox wraps the shell). */
  sandboxed?: boolean;
  /** The session the task belongs to (the sandbox is the session's). */
  sessionId?: string;
  /** Agent tasks: what the request carried for the runner (opaque to the pool). */
  payload?: unknown;
}

export interface RunnerExit {
  /** The leader's own exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: number | null;
  /** Work that is not a process (an agent): why it failed, in words. */
  error?: string | null;
}

export interface StopReport {
  /** Processes found outside the task's container by its mark, and ended with it. */
  outside: number[];
}

/** Processes that outlived SIGKILL by the confirmation limit (uninterruptible sleep, mostly). */
export class StuckError extends Error {
  readonly stuck: readonly { pid: number; state: string | null }[];

  constructor(stuck: readonly { pid: number; state: string | null }[], waitedMs: number) {
    const list = stuck.map(({ pid, state }) => `${pid}${state ? ` (${state})` : ''}`).join(', ');
    super(
      `SIGKILL left ${stuck.length === 1 ? '1 process' : `${stuck.length} processes`} running after ${waitedMs / 1000} s: ${list}`,
    );
    this.name = 'StuckError';
    this.stuck = stuck;
  }
}

export interface RunnerHandle {
  /** 0 for work that is not an OS process. */
  readonly pid: number;
  /** Opaque OS identity of the leader (Linux: start ticks), or null. */
  readonly processStartedAt: string | null;
  /** How the task's processes are held together; null for work that is not an OS process. */
  readonly containment: Containment | null;
  /** The task's cgroup (Linux), recorded so a later run can end what is left in it. */
  readonly cgroup: string | null;
  /** Why the task is held less tightly than this machine allows, in words; null when it is not. */
  readonly containmentNote: string | null;
  /** Settles when the work is over: for a process, when its leader has exited and its container is empty. */
  wait(): Promise<RunnerExit>;
  /**
   * Ends the work: SIGTERM and SIGCONT to everything, SIGKILL after the grace. Resolves when it is
   * gone; rejects with StuckError when processes outlive SIGKILL (the work is still watched).
   */
  stop(graceMs: number): Promise<StopReport>;
  /** Backpressure from the output sink. */
  pause(): void;
  resume(): void;
  /** Answers a task waiting for input (its terminal, or its stdin pipe). */
  write(data: string): void;
}

/** What a runner reports while the work runs. */
export interface RunnerListener {
  /** A chunk of output, lent for the call only (a runner may read into the same memory next): a listener that keeps bytes copies them. */
  output(chunk: Buffer): void;
  /** The leader exited while other processes of the task still run: the task runs on until they end. */
  leaderExited(): void;
  /** Windows: the processes seen in the task's job so far, for a later run to prove. */
  members?(members: readonly WindowsMember[]): void;
}

export interface Runner {
  /** Rejects, with the reason in words, when the work cannot start at all. */
  start(spec: Spec, listener: RunnerListener): Promise<RunnerHandle>;
  /**
   * The output as a person reads it, for work whose log is not terminal output (an agent's is its
   * transcript as JSON lines); absent: the log is rendered as a terminal shows it.
   */
  readable?(log: string, tailLines?: number): string;
}

/** A task that could not start: the message says why, for the person and the model. */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartError';
  }
}
