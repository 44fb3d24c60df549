import { readFileSync, writeFileSync } from 'node:fs';
import { cgroupCpuMicros, cgroupDir, findCgroup2 } from './cgroup.js';
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
 * is over the process's cgroup (cgroup v1: its `cpu` hierarchy's root; v2: `cpu` not among its
 * cgroup's controllers). False where it cannot tell.
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
  const hierarchy = findCgroup2();
  const dir = hierarchy && cgroupDir(hierarchy, unified);
  const available = dir ? read(`${dir}/cgroup.controllers`) : null;
  return available !== null && !available.split(/\s+/).includes('cpu');
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
  /** The task's shell, which leads its session. */
  readonly leader: number;
  /** The task's CPU time so far in microseconds; null when it cannot be read now. */
  cpuMicros(): number | null;
  /** Whether the leader is still this task's (not exited, its pid not reused). */
  alive(): boolean;
}

/** Sets a session's group's nice value through its leader; throws the OS's error. */
export type GroupWriter = (leader: number, nice: number) => void;

export interface TaskWeigherOptions {
  /** The least nice value a task's group runs at (`background.taskNice`). */
  floor: () => number;
  /** Whether busy tasks share one program's weight (`background.shareTaskCpu`); off, every group is at the floor. */
  share: () => boolean;
  log: (message: string) => void;
  /** Tests: the clock of the counts and the writer of groups. */
  everyMs?: number;
  write?: GroupWriter;
}

interface Tracked {
  task: WeighedTask;
  /** CPU time at the last count; null before the first. */
  last: number | null;
  busy: boolean;
  /** The nice value last asked for its group (a new session's group starts at 0). */
  asked: number;
}

/** The session groups of Drover's running tasks, weighed as one program (see above). */
export class TaskWeigher {
  readonly #options: TaskWeigherOptions;
  readonly #write: GroupWriter;
  readonly #tasks = new Set<Tracked>();
  /** Changes not yet taken by the kernel, by leader, in the order asked. */
  readonly #pending = new Map<number, { nice: number; tracked: Tracked }>();
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
    const tracked: Tracked = { task, last: task.cpuMicros(), busy: true, asked: 0 };
    this.#tasks.add(tracked);
    // A task just started is counted busy; its group is weighed at once, the others at the next count.
    this.#ask(tracked, this.#target(this.#busyCount()));
    if (this.#timer === null) {
      this.#countedAt = Date.now();
      this.#timer = setInterval(() => this.weigh(), this.#options.everyMs ?? WEIGH_EVERY_MS);
      this.#timer.unref();
    }
    return () => {
      this.#tasks.delete(tracked);
      this.#pending.delete(task.leader);
      if (this.#tasks.size === 0) this.stop();
    };
  }

  /** Counts the busy tasks again and asks each group for its share (the timer's work). */
  weigh(): void {
    const now = Date.now();
    const elapsedMicros = Math.max(1, now - this.#countedAt) * 1000;
    this.#countedAt = now;
    for (const tracked of this.#tasks) {
      const used = tracked.task.cpuMicros();
      if (used !== null && tracked.last !== null) tracked.busy = used - tracked.last >= BUSY_SHARE * elapsedMicros;
      tracked.last = used;
    }
    const target = this.#target(this.#busyCount());
    for (const tracked of this.#tasks) this.#ask(tracked, target);
  }

  /** How many tasks are weighed now, and the nice value each group was last asked for. */
  snapshot(): { leader: number; busy: boolean; nice: number }[] {
    return [...this.#tasks].map((t) => ({ leader: t.task.leader, busy: t.busy, nice: t.asked }));
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#retry) clearTimeout(this.#retry);
    this.#timer = this.#retry = null;
    this.#pending.clear();
  }

  #busyCount(): number {
    let busy = 0;
    for (const tracked of this.#tasks) if (tracked.busy) busy++;
    return busy;
  }

  #target(busy: number): number {
    const floor = Math.min(19, Math.max(0, Math.trunc(this.#options.floor())));
    return this.#options.share() ? Math.max(floor, sharedNice(busy)) : floor;
  }

  #ask(tracked: Tracked, nice: number): void {
    if (tracked.asked === nice) return;
    tracked.asked = nice;
    this.#pending.delete(tracked.task.leader);
    this.#pending.set(tracked.task.leader, { nice, tracked });
    if (this.#retry === null) this.#drain();
  }

  /** Writes what is pending; on the kernel's EAGAIN (its pace for unprivileged changes), goes on after a pause. */
  #drain(): void {
    this.#retry = null;
    for (const [leader, { nice, tracked }] of this.#pending) {
      if (!this.#tasks.has(tracked) || !tracked.task.alive()) {
        this.#pending.delete(leader);
        continue;
      }
      try {
        this.#write(leader, nice);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          this.#retry = setTimeout(() => this.#drain(), GROUP_WRITE_PAUSE_MS);
          this.#retry.unref();
          return;
        }
        this.#warn(leader, error as NodeJS.ErrnoException);
      }
      this.#pending.delete(leader);
    }
  }

  #warn(leader: number, error: NodeJS.ErrnoException): void {
    if (error.code === 'ESRCH' || error.code === 'ENOENT' || this.#warned) return;
    this.#warned = true;
    this.#options.log(
      `could not weigh the scheduling group of task process ${leader}: ${error.message}; such tasks keep their group's weight (said once per run)`,
    );
  }
}

/**
 * Sets the nice value of the session group `leader` leads, through `/proc/<pid>/autogroup`. Only a
 * process that leads its own session is written: never a group Drover itself, or a program
 * started otherwise, is in.
 */
export function writeSessionGroup(leader: number, nice: number): void {
  if (Number(linuxStat(leader)?.[3]) !== leader) return;
  writeFileSync(`/proc/${leader}/autogroup`, String(nice));
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
