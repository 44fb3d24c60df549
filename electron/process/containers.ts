import { join } from 'node:path';
import { canDelegate, cgroupDir, cgroupOf, Cgroups, findCgroup2, type CgroupHierarchy } from './cgroup.js';
import { markFor, type Containment, type Mark, type WindowsMember } from './identity.js';
import { MARK_SCAN_MS, MarkScan } from './mark-scan.js';
import type { UnixOs } from './unix-os.js';
import { unixLaunch, type LaunchOptions } from './unix-launch.js';

/** How long a new task's shell may take to be inside its container before the start fails. */
export const ATTACH_LIMIT_MS = 15_000;

/**
 * What holds one task's processes together, so the task runs until all of them have ended
 * and is stopped as a whole. A cgroup where the OS lets Drover make one; else the process
 * group the shell leads, plus the task's mark for processes that leave it.
 */
export interface TaskContainer {
  readonly kind: Containment;
  /** The task's cgroup, as the kernel names it; null without one. */
  readonly cgroup: string | null;
  /** Why this task is held less tightly than this machine allows, in words; null when it is not. */
  readonly note: string | null;
  /** The program and arguments that put the shell inside (and its terminal raw) before the command runs. */
  wrap(file: string, args: readonly string[], options?: LaunchOptions): { file: string; args: string[] };
  /**
   * Resolves once the leader is inside (or has already exited). Rejects after ATTACH_LIMIT_MS.
   * `write` types into the task's terminal (Windows releases its start gate with it).
   */
  attach(pid: number, exited: () => boolean, write: (data: string) => void): Promise<void>;
  /** Nothing of the task is left: its container is empty and no process carries its mark. */
  isEmpty(): boolean;
  /** Every process of the task now. */
  members(): number[];
  /** The processes inside the task's own cgroup, read without the search by mark; absent without a cgroup. */
  enclosed?(): number[];
  /**
   * SIGTERM and SIGCONT to every process of the task. Resolves with the pids found outside the
   * container by their mark; null where there is no gentle stop to wait on, so a stop goes straight
   * to kill(). Never rejects.
   */
  terminate(): Promise<number[] | null>;
  /** SIGKILL to every process of the task. Returns the pids found outside the container by their mark. */
  kill(): number[];
  /** Releases what the container holds on the OS (removes the empty cgroup); never rejects. */
  dispose(): Promise<void>;
  /** Windows: reports the processes seen in the task's job as they appear. */
  watchMembers?(report: (members: readonly WindowsMember[]) => void): void;
}

/** One task's view of the shared scan: its own marked processes, and signals that re-check each one. */
class MarkedProcesses {
  constructor(
    private readonly os: UnixOs,
    private readonly mark: Mark,
    private readonly scan: MarkScan,
  ) {}

  /** The marked processes, or null when they could not be looked up. */
  pids(fresh = false): number[] | null {
    try {
      return this.scan.all(fresh).get(this.mark.value) ?? [];
    } catch {
      return null;
    }
  }

  /** Signals marked processes outside `inside`, each re-checked right before; returns them. */
  signal(signal: NodeJS.Signals, inside: ReadonlySet<number>): number[] {
    const out: number[] = [];
    for (const pid of this.pids(true) ?? []) {
      if (inside.has(pid) || this.os.markOf(pid, this.mark.variable) !== this.mark.value) continue;
      if (this.os.signalProcess(pid, signal) === 'ok') out.push(pid);
    }
    this.scan.invalidate();
    return out;
  }
}

/** The fallback: the process group the shell leads, and the mark for what leaves it. */
export class GroupContainer implements TaskContainer {
  readonly kind = 'group' as const;
  readonly cgroup = null;
  readonly note: string | null;
  readonly #os: UnixOs;
  readonly #marked: MarkedProcesses;
  #pgid = 0;
  /** Once the group has no live member its number is free for reuse: it is never signalled again. */
  #groupGone = false;
  /** The last look at the group's live members, reused while a finished task's shell waits for them. */
  #members: { at: number; pids: number[] } | null = null;

  constructor(os: UnixOs, mark: Mark, note: string | null = null, scan = new MarkScan(os, mark.variable)) {
    this.#os = os;
    this.#marked = new MarkedProcesses(os, mark, scan);
    this.note = note;
  }

  wrap(file: string, args: readonly string[], options: LaunchOptions = {}): { file: string; args: string[] } {
    return unixLaunch(null, file, args, options);
  }

  async attach(pid: number, exited: () => boolean): Promise<void> {
    this.#pgid = pid;
    // The shell becomes a session (and group) leader right after the fork; until then -pid names nothing.
    await attachWithin(() => exited() || this.#os.signalGroup(pid, 0) !== 'missing', 'its own process group');
  }

  /**
   * Live members of the group; a group of zombies is over (they wait only to be reaped). Listing
   * them reads every process, so a poll reuses the last list for MARK_SCAN_MS; whether the group
   * exists at all is asked every time.
   */
  #groupMembers(fresh = false): number[] {
    if (this.#groupGone || this.#pgid <= 1) return [];
    if (this.#os.signalGroup(this.#pgid, 0) === 'missing') {
      this.#groupGone = true;
      return [];
    }
    if (!fresh && this.#members && Date.now() - this.#members.at <= MARK_SCAN_MS) return this.#members.pids;
    let members: number[];
    try {
      members = this.#os.groupMembers(this.#pgid);
    } catch {
      // Unknown is not empty: the group is looked at again later.
      this.#members = null;
      return [this.#pgid];
    }
    if (members.length === 0) this.#groupGone = true;
    this.#members = { at: Date.now(), pids: members };
    return members;
  }

  isEmpty(): boolean {
    if (this.#groupMembers().length > 0) return false;
    const marked = this.#marked.pids();
    return marked !== null && marked.length === 0;
  }

  members(): number[] {
    return [...new Set([...this.#groupMembers(true), ...(this.#marked.pids(true) ?? [])])];
  }

  async terminate(): Promise<number[]> {
    const inside = new Set(this.#groupMembers(true));
    if (inside.size > 0) {
      this.#os.signalGroup(this.#pgid, 'SIGTERM');
      // A stopped (SIGSTOP'd) process never acts on SIGTERM until it is continued.
      this.#os.signalGroup(this.#pgid, 'SIGCONT');
    }
    const outside = this.#marked.signal('SIGTERM', inside);
    for (const pid of outside) this.#os.signalProcess(pid, 'SIGCONT');
    return outside;
  }

  kill(): number[] {
    const inside = new Set(this.#groupMembers(true));
    if (inside.size > 0) this.#os.signalGroup(this.#pgid, 'SIGKILL');
    return this.#marked.signal('SIGKILL', inside);
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

/** A cgroup of the task's own: neither setsid, double forks, set -m nor an unset mark leaves it. */
class CgroupContainer implements TaskContainer {
  readonly kind = 'cgroup' as const;
  readonly cgroup: string;
  readonly note = null;
  readonly #cgroups: Cgroups;
  readonly #os: UnixOs;
  readonly #marked: MarkedProcesses;

  constructor(cgroups: Cgroups, path: string, os: UnixOs, mark: Mark, scan: MarkScan) {
    this.#cgroups = cgroups;
    this.cgroup = path;
    this.#os = os;
    this.#marked = new MarkedProcesses(os, mark, scan);
  }

  wrap(file: string, args: readonly string[], options: LaunchOptions = {}): { file: string; args: string[] } {
    const dir = cgroupDir(this.#cgroups.hierarchy, this.cgroup)!;
    return unixLaunch(join(dir, 'cgroup.procs'), file, args, options);
  }

  async attach(pid: number, exited: () => boolean): Promise<void> {
    await attachWithin(() => exited() || cgroupOf(pid) === this.cgroup, 'its cgroup');
  }

  isEmpty(): boolean {
    if (this.#cgroups.populated(this.cgroup) === true) return false;
    const marked = this.#marked.pids();
    return marked !== null && marked.length === 0;
  }

  members(): number[] {
    return [...new Set([...this.#cgroups.members(this.cgroup), ...(this.#marked.pids(true) ?? [])])];
  }

  enclosed(): number[] {
    return this.#cgroups.members(this.cgroup);
  }

  async terminate(): Promise<number[]> {
    const inside = new Set(
      this.#cgroups.exists(this.cgroup) ? await this.#cgroups.signalAsync(this.cgroup, 'SIGTERM') : [],
    );
    if (inside.size > 0) this.#cgroups.signal(this.cgroup, 'SIGCONT');
    const outside = this.#marked.signal('SIGTERM', inside);
    for (const pid of outside) this.#os.signalProcess(pid, 'SIGCONT');
    return outside;
  }

  kill(): number[] {
    if (this.#cgroups.exists(this.cgroup)) this.#cgroups.kill(this.cgroup);
    return this.#marked.signal('SIGKILL', new Set(this.#cgroups.members(this.cgroup)));
  }

  async dispose(): Promise<void> {
    await this.#cgroups.removeAsync(this.cgroup);
  }
}

async function attachWithin(inside: () => boolean, where: string): Promise<void> {
  // Short polls: the shell is normally inside within a few milliseconds of the fork, and a task's
  // start waits for this, so the first 20 ms are polled every millisecond (a doubling pause from
  // the start cost up to 15 ms of idle wait per task); a slow machine then backs off to 20 ms.
  const limit = Date.now() + ATTACH_LIMIT_MS;
  let polls = 0;
  while (!inside()) {
    if (Date.now() > limit)
      throw new Error(`the task's shell was not inside ${where} within ${ATTACH_LIMIT_MS / 1000} s`);
    polls += 1;
    await new Promise((resolve) => setTimeout(resolve, polls <= 20 ? 1 : Math.min(2 ** (polls - 20), 20)));
  }
}

/** How tasks are contained on this machine, decided once per run. */
export interface ContainerFactory {
  /** What each task is held in here, and why, in words: "a cgroup of its own, under …". */
  readonly description: string;
  readonly kind: Containment;
  /** A new task's container, made off the event loop where the OS has work to do (a cgroup's folder). */
  create(taskId: string, mark: Mark): Promise<TaskContainer>;
  /** Removes this run's empty cgroups. */
  dispose(): void;
}

export interface ContainerOptions {
  instanceId: string;
  os: UnixOs;
  /** 'group' skips cgroups (tests of the fallback). */
  mode?: 'auto' | 'group';
  /** The instance's shared scan for marked processes; one of its own when not given. */
  marks?: MarkScan;
}

/**
 * Linux with cgroup v2 where this process may create cgroups (root, or a subtree delegated to
 * the user, as under a systemd user manager): a cgroup per task under
 * `<Drover's own cgroup>/drover-<instance>/`. Elsewhere, the process group.
 */
export function unixContainers(options: ContainerOptions): ContainerFactory {
  const marks = options.marks ?? new MarkScan(options.os, markFor(options.instanceId, '').variable);
  const found = options.mode === 'group' ? 'cgroups were turned off for this run' : ownCgroup();
  if (typeof found === 'string')
    return groupContainers(options.os, marks, `its own process group, not a cgroup (${found})`);
  const { hierarchy, own } = found;
  const cgroups = new Cgroups(hierarchy);
  const base = `${own === '/' ? '' : own}/drover-${options.instanceId}`;
  /** Whether this run has made (or found) the instance's cgroup: then a task's is made in one step. */
  let baseMade = false;
  const makeTaskCgroup = async (path: string): Promise<void> => {
    if (baseMade) {
      try {
        return await cgroups.create(path);
      } catch (error) {
        // The instance's cgroup was removed under us (ENOENT): made again below.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    await cgroups.ensure(base);
    baseMade = true;
    await cgroups.create(path);
  };
  return {
    kind: 'cgroup',
    description: `a cgroup of its own, under ${cgroupDir(hierarchy, base)}`,
    async create(taskId, mark) {
      const path = `${base}/${taskId}`;
      try {
        await makeTaskCgroup(path);
      } catch (error) {
        return new GroupContainer(
          options.os,
          mark,
          `its cgroup could not be created (${(error as Error).message}), so it runs in a process group`,
          marks,
        );
      }
      return new CgroupContainer(cgroups, path, options.os, mark, marks);
    },
    dispose() {
      cgroups.remove(base);
    },
  };
}

/** Where this process's cgroup is, when it may make cgroups under it; else why not, in words. */
function ownCgroup(): { hierarchy: CgroupHierarchy; own: string } | string {
  if (process.platform !== 'linux') return 'cgroups are Linux only';
  const hierarchy = findCgroup2();
  if (!hierarchy) return 'cgroup v2 is not mounted';
  const own = cgroupOf('self');
  if (own === null) return 'this process is not in a cgroup v2 hierarchy';
  return canDelegate(hierarchy, own) ?? { hierarchy, own };
}

function groupContainers(os: UnixOs, marks: MarkScan, description: string): ContainerFactory {
  return {
    kind: 'group',
    description,
    create: (_taskId, mark) => Promise.resolve(new GroupContainer(os, mark, null, marks)),
    dispose() {},
  };
}
