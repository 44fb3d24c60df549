import type { ContainerFactory, TaskContainer } from './containers.js';
import type { Containment, WindowsMember } from './identity.js';
import { endProvenTree } from './leftovers-windows.js';
import type { WindowsOs } from './windows-os.js';

/** How often the processes in a task's job are read and recorded. */
export const MEMBER_POLL_MS = 1_000;

/**
 * cmd.exe waits at this gate for one key before it runs the command, so the job is assigned
 * while the shell can have no children yet (node-pty cannot start a process suspended).
 * `pause` prints nothing with its output discarded and echoes no key.
 */
export const START_GATE = 'pause >nul & ';
/** The key that opens the gate. */
export const GATE_KEY = '\r';

/** cmd.exe by name, with or without a folder and `.exe` (never `mycmd.exe`). */
export function isCmd(file: string): boolean {
  return /(^|[\\/])cmd(\.exe)?$/i.test(file);
}

/**
 * A Windows job object per task: the whole tree, whatever its parent links say. Without one
 * (the job could not be made or joined) the task is held only by its proven tree: its leader
 * and the descendants whose creation times prove them (containment "tree").
 */
export class JobContainer implements TaskContainer {
  kind: Containment = 'job';
  readonly cgroup = null;
  note: string | null = null;
  readonly #os: WindowsOs;
  readonly #identify: (pid: number) => string | null;
  readonly #members = new Map<number, WindowsMember>();
  #job: unknown | null = null;
  #gated = false;
  #leader: WindowsMember | null = null;
  #onMembers: ((members: readonly WindowsMember[]) => void) | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(os: WindowsOs, identify: (pid: number) => string | null) {
    this.#os = os;
    this.#identify = identify;
  }

  wrap(file: string, args: readonly string[]): { file: string; args: string[] } {
    const last = args.length - 1;
    if (!isCmd(file) || last < 0 || args[last - 1]?.toLowerCase() !== '/c') {
      this.note =
        'its shell is not cmd.exe, so it joins its job just after it starts, and a child it starts at once may not be in it';
      return { file, args: [...args] };
    }
    this.#gated = true;
    return { file, args: [...args.slice(0, last), `${START_GATE}${args[last]}`] };
  }

  async attach(pid: number, exited: () => boolean, write: (data: string) => void): Promise<void> {
    const created = this.#identify(pid);
    if (created !== null) this.#leader = { pid, created };
    try {
      const job = this.#os.createJob();
      if (job && this.#os.assignToJob(job, pid)) this.#job = job;
      else if (job) this.#os.closeJob(job);
    } catch (error) {
      this.note = `its job object could not be made (${(error as Error).message})`;
    }
    if (!this.#job) {
      this.kind = 'tree';
      this.note ??= exited()
        ? 'it ended before it could join a job object'
        : 'it could not join a job object, so only its proven process tree is ended with it';
    }
    if (this.#gated && !exited()) write(GATE_KEY);
    this.#record();
  }

  /** Reports the processes in the job as they appear, so a later run can prove them after the leader exited. */
  watchMembers(report: (members: readonly WindowsMember[]) => void): void {
    this.#onMembers = report;
    this.#timer = setInterval(() => this.#record(), MEMBER_POLL_MS);
    this.#timer.unref();
    this.#record();
  }

  #record(): void {
    if (!this.#job) return;
    let changed = false;
    let ids: number[];
    try {
      ids = this.#os.jobProcessIds(this.#job);
    } catch {
      return;
    }
    for (const pid of ids) {
      if (this.#members.has(pid)) continue;
      const created = this.#identify(pid);
      if (created === null) continue;
      this.#members.set(pid, { pid, created });
      changed = true;
    }
    if (changed) this.#onMembers?.([...this.#members.values()]);
  }

  isEmpty(): boolean {
    if (!this.#job) return true;
    try {
      return this.#os.jobProcessIds(this.#job).length === 0;
    } catch {
      // Unknown is not empty: settling now would close the job and let its processes run on unrecorded.
      return false;
    }
  }

  members(): number[] {
    if (!this.#job) return [];
    try {
      return this.#os.jobProcessIds(this.#job);
    } catch {
      return [];
    }
  }

  /** Windows has no SIGTERM for a console tree: stopping is terminating. */
  terminate(): Promise<null> {
    return Promise.resolve(null);
  }

  kill(): number[] {
    if (this.#job) this.#os.terminateJob(this.#job);
    const roots = [...(this.#leader ? [this.#leader] : []), ...this.#members.values()];
    try {
      endProvenTree(this.#os, roots);
    } catch {
      /* the job already ended what it held */
    }
    return [];
  }

  dispose(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#job) this.#os.closeJob(this.#job);
    this.#job = null;
    return Promise.resolve();
  }
}

export function windowsContainers(os: WindowsOs, identify: (pid: number) => string | null): ContainerFactory {
  return {
    kind: 'job',
    description: 'a job object of its own',
    create: () => Promise.resolve(new JobContainer(os, identify)),
    dispose() {},
  };
}
