import type { TaskKind } from '../../shared/schemas/task.js';

/** What to run. The pool knows nothing of shells; a Runner gives a Spec meaning. */
export interface Spec {
  kind: TaskKind;
  taskId: string;
  command: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
}

export interface RunnerExit {
  /** The leader's own exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: number | null;
}

export interface RunnerHandle {
  /** 0 for work that is not an OS process. */
  readonly pid: number;
  /** Opaque OS identity of the leader (Linux: start ticks), or null. */
  readonly processStartedAt: string | null;
  /** Settles when the work is over: for a process, when its leader has exited and its group is empty. */
  wait(): Promise<RunnerExit>;
  /** Ends the work: SIGTERM and SIGCONT to the group, SIGKILL after the grace. Resolves when it is gone. */
  stop(graceMs: number): Promise<void>;
  /** Backpressure from the output sink. */
  pause(): void;
  resume(): void;
  /** Answers a task waiting for terminal input. */
  write(data: string): void;
}

export interface OutputSink {
  (chunk: Buffer): void;
}

export interface Runner {
  /** Rejects, with the reason in words, when the work cannot start at all. */
  start(spec: Spec, onOutput: OutputSink): Promise<RunnerHandle>;
}

/** A task that could not start: the message says why, for the person and the model. */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartError';
  }
}
