import type { TaskContainer } from '../process/containers.js';
import { KILL_CONFIRM_MS, waitUntil } from '../process/leftovers-unix.js';
import { within } from './live-task.js';
import { StuckError, type RunnerExit, type RunnerHandle, type RunnerListener, type StopReport } from './runner.js';

/** How often a task whose leader exited is checked for its last processes. */
export const SURVIVOR_POLL_MS = 200;
/** How often a stop looks at whether the task is gone. */
const STOP_POLL_MS = 50;

/**
 * The task's shell as one runner holds it: a terminal (pty-runner.ts) or pipes (pipe-runner.ts).
 * Everything else about a running task (its container, survivors, stop) is the same for both.
 */
export interface LeaderIo {
  readonly pid: number;
  /** Every chunk of output, in order. */
  onData(listener: (chunk: Buffer) => void): void;
  /** Called once, when the shell itself has exited. */
  onExit(listener: (exit: RunnerExit) => void): void;
  /**
   * Called once nothing of the task is left: resolves when the output still in transit has been
   * read, so the log is whole before the task is recorded as ended.
   */
  finish(): Promise<void>;
  pause(): void;
  resume(): void;
  write(data: string): void;
  /** Ends the shell itself: a start that failed after the spawn. */
  killLeader(): void;
  /** The task's terminal, to change its modes (its master's descriptor); absent on pipes. */
  terminalFd?(): number | null;
  /** What else a kill must end where the container does not (Windows: the console host). */
  killExtra?(): void;
}

/** A running task: its shell, its container, and the rule that it runs until its last process has ended. */
export class TaskProcessHandle implements RunnerHandle {
  readonly pid: number;
  readonly processStartedAt: string | null;
  readonly containment: RunnerHandle['containment'];
  readonly cgroup: string | null;
  readonly containmentNote: string | null;
  readonly #io: LeaderIo;
  readonly #container: TaskContainer;
  readonly #state: (pid: number) => string | null;
  readonly #done: Promise<RunnerExit>;
  #leaderExit: RunnerExit | null = null;
  #settled = false;

  constructor(
    io: LeaderIo,
    listener: RunnerListener,
    container: TaskContainer,
    processStartedAt: string | null,
    state: (pid: number) => string | null,
  ) {
    this.#io = io;
    this.#container = container;
    this.#state = state;
    this.pid = io.pid;
    this.processStartedAt = processStartedAt;
    this.containment = container.kind;
    this.cgroup = container.cgroup;
    this.containmentNote = container.note;
    io.onData((chunk) => listener.output(chunk));
    if (listener.members) container.watchMembers?.(listener.members);
    this.#done = new Promise((resolve) => {
      io.onExit((exit) => {
        this.#leaderExit = exit;
        // The task runs until its last process has ended, not just its shell.
        let told = false;
        let looked = false;
        const settleWhenEmpty = () => {
          if (this.#emptySafely() || (!looked && this.#emptyLookingAfresh())) {
            this.#settled = true;
            // Ended once its cgroup is gone too, so nothing of the task is left on the OS when it settles.
            void Promise.allSettled([this.#container.dispose(), io.finish()]).then(() => resolve(exit));
            return;
          }
          looked = true;
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

  /**
   * The scan for marked processes is shared and reused for a second (MARK_SCAN_MS): one taken
   * while this task still ran lists its processes after they ended, and the task would end up to
   * a second late (two tasks ending together would then wake the agent twice). At the leader's
   * exit, a "not yet" is checked once more on a fresh scan (members() takes one), never later.
   */
  #emptyLookingAfresh(): boolean {
    try {
      this.#container.members();
    } catch {
      return false;
    }
    return this.#emptySafely();
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
      gentle = await this.#container.terminate();
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
        this.#io.killExtra?.();
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
      /* ending the shell below still ends the task */
    }
    try {
      this.#io.killLeader();
    } catch {
      /* already gone */
    }
    await within(this.#done, KILL_CONFIRM_MS);
    await this.#container.dispose();
  }

  pause(): void {
    this.#io.pause();
  }

  resume(): void {
    this.#io.resume();
  }

  write(data: string): void {
    if (!this.#leaderExit) this.#io.write(data);
  }
}
