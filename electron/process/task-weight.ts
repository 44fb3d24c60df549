import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { cgroupCpuMicros, cgroupDir, mountedCgroup2 } from './cgroup.js';
import { linuxStat } from './unix-os.js';

/*
 * How much of the processor Drover's tasks get, together, on Linux.
 *
 * With autogroup (`kernel.sched_autogroup_enabled`, on by default in most distributions' kernels)
 * the scheduler weighs sessions, not processes: every session is one group with the same weight
 * (that of nice 0) however many processes it runs. Each task's shell leads a session of its own,
 * so 50 busy tasks weigh as 50 programs against Drover's one, and Drover's own answers waited on
 * the run queue behind them (issue #18: `/api/info` took up to 80 ms at p99 on two cores). Run
 * from a terminal, those 50 commands would have shared the terminal's one group.
 *
 * So the weigher gives the tasks that are busy one program's weight between them: each busy task's
 * group gets the nice value whose weight is nearest 1/n of nice 0's (n busy tasks; the kernel's
 * table, below). One busy task keeps the full weight, so a build alone is as fast as from a
 * terminal; 50 printers weigh about as much as the app. Tasks at rest take no processor whatever
 * their weight and are given the same value, so one that wakes starts at its share. The counts are
 * taken again every WEIGH_EVERY_MS, from each task's CPU time (its cgroup's `cpu.stat`, or its
 * shell's times where it has no cgroup).
 *
 * It does nothing where the scheduler does not weigh sessions: autogroup off, or a cpu controller
 * over the process's cgroup (a systemd desktop that delegates it puts the app, and its tasks, in
 * one weighed cgroup; there the tasks' nice value, `background.taskNice`, is the lever).
 */

/** The kernel's weight of each nice value from 0 to 19 (`sched_prio_to_weight`). */
const NICE_WEIGHTS = [
  1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
] as const;

/** How often the busy tasks are counted again. */
export const WEIGH_EVERY_MS = 1_000;
/** A task that used at least this share of one processor since the last count is busy. */
export const BUSY_SHARE = 0.005;
/**
 * Without CAP_SYS_ADMIN the kernel takes one change of a session group's weight per 100 ms,
 * across the machine, and answers EAGAIN to the rest; the next is tried after this long.
 */
export const GROUP_WRITE_PAUSE_MS = 110;

/** The nice value of each of `busy` groups that together weigh as one group at nice 0. */
export function sharedNice(busy: number): number {
  if (busy <= 1) return 0;
  const target = Math.log(NICE_WEIGHTS[0] / busy);
  let best = 0;
  for (let nice = 1; nice < NICE_WEIGHTS.length; nice++)
    if (Math.abs(Math.log(NICE_WEIGHTS[nice]!) - target) < Math.abs(Math.log(NICE_WEIGHTS[best]!) - target))
      best = nice;
  return best;
}

/**
 * Whether the scheduler weighs `pid`'s session as a group: autogroup is on and no cpu controller
 * is over the process's cgroup (cgroup v1: its `cpu` hierarchy's root; v2: `cpu` not among the
 * controllers of its cgroup or of any above it). False where it cannot tell.
 */
export function sessionGroupsApply(pid: number | 'self', read = readText): boolean {
  if (read('/proc/sys/kernel/sched_autogroup_enabled')?.trim() !== '1') return false;
  const lines = read(`/proc/${pid}/cgroup`);
  if (lines === null) return false;
  let unified: string | null = null;
  for (const line of lines.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers === undefined || path === undefined) continue;
    if (controllers === '') unified = path;
    else if (controllers.split(',').includes('cpu')) return path === '/';
  }
  if (unified === null || unified === '/') return true;
  // A cgroup without the controller is weighed within the nearest one above it that has it.
  const hierarchy = mountedCgroup2();
  if (!hierarchy) return false;
  for (let path = unified; path !== '/' && path !== ''; path = path.slice(0, path.lastIndexOf('/')) || '/') {
    const dir = cgroupDir(hierarchy, path);
    const available = dir ? read(`${dir}/cgroup.controllers`) : null;
    if (available === null || available.split(/\s+/).includes('cpu')) return false;
  }
  return true;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** A task as the weigher sees it. */
export interface WeighedTask {
  /** The task's shell, which leads its session: the session's id. */
  readonly leader: number;
  /** The task's CPU time so far in microseconds; null when it cannot be read now. */
  cpuMicros(): number | null;
  /**
   * A live process of the task in its session, to reach the session's group through: the shell
   * while it runs (its pid not reused), else one of the task's still in the session (`nohup
   * server &`); null when none is left there.
   */
  via(): number | null;
}

/**
 * Sets the group of `session` to `nice` through `pid`, a process in it, if the group is still at
 * `expected` (what Drover last set). Returns false, writing nothing, when something else changed
 * it since: it is then left as it is. Throws the OS's error.
 */
export type GroupWriter = (pid: number, session: number, nice: number, expected: number) => boolean;

export interface TaskWeigherOptions {
  /** The least nice value a task's group runs at (`background.taskNice`), read as each task starts. */
  floor: () => number;
  /** Whether busy tasks share one program's weight (`background.shareTaskCpu`); off, every group is at its floor. */
  share: () => boolean;
  log: (message: string) => void;
  /** Tests: the clock of the counts and the writer of groups. */
  everyMs?: number;
  write?: GroupWriter;
}

interface Tracked {
  task: WeighedTask;
  floor: number;
  /** CPU time at the last count; null before the first. */
  last: number | null;
  busy: boolean;
  /** The process its group is reached through at the last count; null: none left in the session. */
  via: number | null;
  /** The nice value last asked for its group, and the one last set (a new session's group starts at 0). */
  asked: number;
  set: number;
  /** Something else changed its group: Drover no longer weighs it. */
  leftAlone: boolean;
}

/** The session groups of Drover's running tasks, weighed as one program (see above). */
export class TaskWeigher {
  readonly #options: TaskWeigherOptions;
  readonly #write: GroupWriter;
  readonly #tasks = new Set<Tracked>();
  /** Changes not yet taken by the kernel, first asked first written (a later ask updates its place). */
  readonly #pending = new Map<Tracked, number>();
  #timer: NodeJS.Timeout | null = null;
  #retry: NodeJS.Timeout | null = null;
  #countedAt = 0;
  #warned = false;

  constructor(options: TaskWeigherOptions) {
    this.#options = options;
    this.#write = options.write ?? writeSessionGroup;
  }

  /** Weighs a task from now until the returned function is called (when it has ended). */
  track(task: WeighedTask): () => void {
    const floor = Math.min(19, Math.max(0, Math.trunc(this.#options.floor())));
    const tracked: Tracked = {
      task,
      floor,
      last: task.cpuMicros(),
      busy: true,
      via: task.leader,
      asked: 0,
      set: 0,
      leftAlone: false,
    };
    this.#tasks.add(tracked);
    // A task just started is counted busy; its group is weighed at once, the others at the next count.
    this.#ask(tracked, this.#target(tracked, this.#busyCount()));
    if (this.#timer === null) {
      this.#countedAt = performance.now();
      this.#timer = setInterval(() => this.weigh(), this.#options.everyMs ?? WEIGH_EVERY_MS);
      this.#timer.unref();
    }
    return () => {
      this.#tasks.delete(tracked);
      this.#pending.delete(tracked);
      if (this.#tasks.size === 0) this.stop();
    };
  }

  /** Counts the busy tasks again and asks each group for its share (the timer's work). */
  weigh(): void {
    const now = performance.now();
    const elapsedMicros = Math.max(1, now - this.#countedAt) * 1000;
    this.#countedAt = now;
    // Sharing off, every group is at its floor: nothing to count.
    const counting = this.#options.share();
    for (const tracked of this.#tasks) {
      if (tracked.leftAlone) continue;
      tracked.via = tracked.task.via();
      if (!counting) {
        tracked.last = null; // a count after sharing is turned back on starts afresh
        continue;
      }
      const used = tracked.task.cpuMicros();
      if (used !== null && tracked.last !== null) tracked.busy = used - tracked.last >= BUSY_SHARE * elapsedMicros;
      tracked.last = used;
    }
    const busy = this.#busyCount();
    for (const tracked of this.#tasks) this.#ask(tracked, this.#target(tracked, busy));
  }

  /** The tasks weighed now: whether each was busy at the last count, and the nice value asked for its group. */
  snapshot(): { leader: number; busy: boolean; nice: number; weighed: boolean }[] {
    return [...this.#tasks].map((t) => ({
      leader: t.task.leader,
      busy: t.busy,
      nice: t.asked,
      weighed: !t.leftAlone && t.via !== null,
    }));
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#retry) clearTimeout(this.#retry);
    this.#timer = this.#retry = null;
    this.#pending.clear();
  }

  /** Busy tasks whose group Drover weighs (not those with no process left in it, or left alone). */
  #busyCount(): number {
    let busy = 0;
    for (const tracked of this.#tasks) if (tracked.busy && !tracked.leftAlone && tracked.via !== null) busy++;
    return busy;
  }

  #target(tracked: Tracked, busy: number): number {
    return this.#options.share() ? Math.max(tracked.floor, sharedNice(busy)) : tracked.floor;
  }

  #ask(tracked: Tracked, nice: number): void {
    if (tracked.leftAlone || tracked.via === null || tracked.asked === nice) return;
    tracked.asked = nice;
    this.#pending.set(tracked, nice);
    if (this.#retry === null) this.#drain();
  }

  /** Writes what is pending; on the kernel's EAGAIN (its pace for unprivileged changes), goes on after a pause. */
  #drain(): void {
    this.#retry = null;
    for (const [tracked, nice] of this.#pending) {
      const via = tracked.via;
      if (!this.#tasks.has(tracked) || via === null || tracked.set === nice) {
        this.#pending.delete(tracked);
        continue;
      }
      try {
        if (this.#write(via, tracked.task.leader, nice, tracked.set)) tracked.set = nice;
        else tracked.leftAlone = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          this.#retry = setTimeout(() => this.#drain(), GROUP_WRITE_PAUSE_MS);
          this.#retry.unref();
          return;
        }
        this.#warn(via, error as NodeJS.ErrnoException);
      }
      this.#pending.delete(tracked);
    }
  }

  #warn(pid: number, error: NodeJS.ErrnoException): void {
    if (error.code === 'ESRCH' || error.code === 'ENOENT' || this.#warned) return;
    this.#warned = true;
    this.#options.log(
      `could not weigh the scheduling group of task process ${pid}: ${error.message}; such tasks keep their group's weight (said once per run)`,
    );
  }
}

/**
 * Sets the nice value of a task's session group through `/proc/<pid>/autogroup` (GroupWriter).
 * Only through a process whose session is the task's, which its shell started: never a group
 * Drover itself, or a program started otherwise, is in.
 */
export function writeSessionGroup(pid: number, session: number, nice: number, expected: number): boolean {
  if (Number(linuxStat(pid)?.[3]) !== session) return true; // gone, or not the task's: nothing to set
  const file = `/proc/${pid}/autogroup`;
  const current = /nice (-?\d+)/.exec(readText(file) ?? '');
  if (!current) return true;
  if (Number(current[1]) !== expected) return false;
  writeFileSync(file, String(nice));
  return true;
}

/** A task's CPU time: its cgroup's where it has one, else its shell's own and that of the children it has waited for. */
export function taskCpuMicros(leader: number, cgroup: string | null): number | null {
  if (cgroup !== null) return cgroupCpuMicros(cgroup);
  const stat = linuxStat(leader);
  if (!stat) return null;
  // utime, stime, cutime, cstime: fields 14 to 17 of /proc/<pid>/stat, in clock ticks (USER_HZ, 100 on Linux).
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(stat[i] ?? 0), 0);
  return Number.isFinite(ticks) ? ticks * 10_000 : null;
}
