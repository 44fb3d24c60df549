import type { CgroupOps, RunTool, SignalOutcome, UnixOs } from '../../electron/process/unix-os.js';
import { ProbeFailure } from '../../electron/process/unix-os.js';
import type { OpenOutcome, WinHandle, WindowsOs } from '../../electron/process/windows-os.js';

export interface FakeProcess {
  pid: number;
  pgid: number;
  start: string;
  /** Its environment, or 'unreadable' (another user's process). */
  env: Record<string, string> | 'unreadable';
  /** Ignores SIGTERM (only SIGKILL ends it). */
  stubborn?: boolean;
  /** Its cgroup v2 path, when it has one. */
  cgroup?: string;
}

/** A process table in memory that behaves like Linux for the calls the leftover logic makes. */
export class FakeUnix implements UnixOs {
  processes = new Map<number, FakeProcess>();
  signals: string[] = [];
  boot = 'boot-1';
  /** cgroups that exist (with or without processes). */
  cgroupDirs = new Set<string>();
  /** When set, start-time and group questions fail the way a crashed tool does. */
  broken: string | null = null;
  cgroups?: CgroupOps;

  constructor(options: { cgroups?: boolean } = {}) {
    if (options.cgroups) this.cgroups = this.#cgroupOps();
  }

  add(process: FakeProcess): this {
    this.processes.set(process.pid, process);
    if (process.cgroup) this.cgroupDirs.add(process.cgroup);
    return this;
  }

  signalGroup(pgid: number, signal: NodeJS.Signals | 0): SignalOutcome {
    const members = [...this.processes.values()].filter((p) => p.pgid === pgid);
    if (members.length === 0) return 'missing';
    if (signal !== 0) {
      this.signals.push(`-${pgid}:${signal}`);
      for (const member of members) this.#deliver(member, signal);
    }
    return 'ok';
  }

  signalProcess(pid: number, signal: NodeJS.Signals | 0): SignalOutcome {
    const target = this.processes.get(pid);
    if (!target) return 'missing';
    if (signal !== 0) {
      this.signals.push(`${pid}:${signal}`);
      this.#deliver(target, signal);
    }
    return 'ok';
  }

  #deliver(target: FakeProcess, signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL' || (signal === 'SIGTERM' && !target.stubborn)) this.processes.delete(target.pid);
  }

  startTime(pid: number): string | null {
    if (this.broken) throw new ProbeFailure(this.broken);
    return this.processes.get(pid)?.start ?? null;
  }

  bootId(): string | null {
    return this.boot;
  }

  groupMembers(pgid: number): number[] {
    if (this.broken) throw new ProbeFailure(this.broken);
    return [...this.processes.values()].filter((p) => p.pgid === pgid).map((p) => p.pid);
  }

  markOf(pid: number, variable: string): string | null | 'unreadable' {
    const target = this.processes.get(pid);
    if (!target || target.env === 'unreadable') return 'unreadable';
    return target.env[variable] ?? null;
  }

  markedProcesses(variable: string): Map<string, number[]> {
    if (this.broken) throw new ProbeFailure(this.broken);
    const found = new Map<string, number[]>();
    for (const p of this.processes.values()) {
      const value = p.env === 'unreadable' ? undefined : p.env[variable];
      if (value) found.set(value, [...(found.get(value) ?? []), p.pid]);
    }
    return found;
  }

  processState(pid: number): string | null {
    return this.processes.has(pid) ? 'S (sleeping)' : null;
  }

  #cgroupOps(): CgroupOps {
    const inside = (path: string) =>
      [...this.processes.values()].filter((p) => p.cgroup === path || p.cgroup?.startsWith(`${path}/`));
    return {
      exists: (path) => this.cgroupDirs.has(path),
      populated: (path) => (this.cgroupDirs.has(path) ? inside(path).length > 0 : null),
      members: (path) => inside(path).map((p) => p.pid),
      signal: (path, signal) => {
        const members = inside(path);
        this.signals.push(`cgroup ${path}:${signal}`);
        for (const member of members) this.#deliver(member, signal);
        return members.map((p) => p.pid);
      },
      kill: (path) => {
        this.signals.push(`cgroup ${path}:kill`);
        for (const member of inside(path)) this.#deliver(member, 'SIGKILL');
      },
      remove: (path) => {
        if (inside(path).length > 0) return false;
        this.cgroupDirs.delete(path);
        return true;
      },
    };
  }
}

/**
 * macOS's ps and sysctl as the leftover logic meets them: `ps` exits 1 and prints nothing for a
 * pid that is not there; its start times follow the caller's locale and time zone; `-E` appends
 * the environment of the caller's own processes; and it can fail in other ways (not found,
 * killed by a signal) that say nothing about the process asked about.
 */
export class FakeMacTools {
  processes = new Map<number, { pgid: number; started: Date; command: string; env: Record<string, string> }>();
  calls: { file: string; args: readonly string[]; env: NodeJS.ProcessEnv }[] = [];
  sessionUuid = '5E1C2D7A-0000-4000-8000-00000000B007';
  /** How the next ps call fails, if it does. */
  failure: 'killed' | 'missing' | null = null;

  run: RunTool = (file, args, env) => {
    this.calls.push({ file, args, env });
    if (file.endsWith('sysctl')) {
      return args.includes('kern.bootsessionuuid')
        ? { status: 0, stdout: `${this.sessionUuid}\n` }
        : { status: 0, stdout: '{ sec = 1796000000, usec = 0 } Mon Nov 30 09:00:00 2026\n' };
    }
    if (this.failure === 'killed') return { status: null, stdout: '' };
    if (this.failure === 'missing')
      return { status: null, stdout: '', error: Object.assign(new Error('spawn ps ENOENT'), { code: 'ENOENT' }) };
    const pidAt = args.indexOf('-p');
    const format = args[args.indexOf('-o') + 1]!;
    const rows =
      pidAt >= 0 ? [Number(args[pidAt + 1])].filter((pid) => this.processes.has(pid)) : [...this.processes.keys()];
    if (rows.length === 0) return { status: 1, stdout: '' };
    const lines = rows.map((pid) => {
      const p = this.processes.get(pid)!;
      const environment = Object.entries(p.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      const command = args.includes('-E') ? `${p.command} ${environment}` : p.command;
      if (format === 'lstart=') return lstart(p.started, env);
      if (format === 'pid=,pgid=,stat=') return `${String(pid).padStart(5)} ${String(p.pgid).padStart(5)} S`;
      if (format === 'pid=,command=') return `${String(pid).padStart(5)} ${command}`;
      if (format === 'command=') return command;
      if (format === 'stat=') return 'S';
      return '';
    });
    return { status: 0, stdout: `${lines.join('\n')}\n` };
  };
}

/** `ps -o lstart` text: month names follow LC_ALL/LANG, the clock follows TZ (as on macOS). */
function lstart(date: Date, env: NodeJS.ProcessEnv): string {
  const utc = env.TZ === 'UTC0' || env.TZ === 'UTC';
  const shown = new Date(date.getTime() + (utc ? 0 : 3_600_000));
  const locale = (env.LC_ALL ?? env.LANG ?? '').startsWith('fr') ? 'fr' : 'C';
  const months =
    locale === 'fr'
      ? ['janv', 'févr', 'mars', 'avr', 'mai', 'juin', 'juil', 'août', 'sept', 'oct', 'nov', 'déc']
      : ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `Mon ${months[shown.getUTCMonth()]} ${pad(shown.getUTCDate())} ${pad(shown.getUTCHours())}:${pad(shown.getUTCMinutes())}:${pad(shown.getUTCSeconds())} ${shown.getUTCFullYear()}`;
}

export interface FakeWinProcess {
  pid: number;
  created: string;
  exited: boolean;
  parentPid: number;
  /** Another user's or a protected process: OpenProcess fails with ERROR_ACCESS_DENIED. */
  protected?: boolean;
}

/**
 * Windows as the leftover and job logic meets it: an exited process stays openable while a
 * handle to it is held, and its number is free for reuse once none is; parent pids are never
 * updated, so a newer process may name an older, reused number as its parent; opening another
 * user's process is denied; children join their parent's job; terminating needs the right.
 */
export class FakeWindows implements WindowsOs {
  table = new Map<number, FakeWinProcess>();
  openHandles = new Map<number, number>();
  /** The rights asked for by each open, in order. */
  rights: ('query' | 'terminate')[] = [];
  terminated: number[] = [];
  /** Whether each terminated process's handle was held while it was terminated (always, by construction). */
  jobs = new Map<number, Set<number>>();
  #nextJob = 1;
  #clock = 133_000_000_000_000_000n;

  add(process: FakeWinProcess): this {
    this.table.set(process.pid, process);
    return this;
  }

  /** A process starting now as a child of `parentPid`: it joins every job its parent is in. */
  spawn(pid: number, parentPid: number): FakeWinProcess {
    this.#clock += 10_000n;
    const child = { pid, created: this.#clock.toString(), exited: false, parentPid };
    this.table.set(pid, child);
    for (const members of this.jobs.values()) if (members.has(parentPid)) members.add(pid);
    return child;
  }

  open(pid: number, access: 'query' | 'terminate'): OpenOutcome {
    this.rights.push(access);
    const target = this.table.get(pid);
    if (!target || (target.exited && !this.openHandles.get(pid))) return 'missing';
    if (target.protected) return 'denied';
    this.openHandles.set(pid, (this.openHandles.get(pid) ?? 0) + 1);
    return { pid, access } as WinHandle;
  }

  isRunning(handle: WinHandle): boolean {
    return !this.table.get(handle.pid)?.exited;
  }

  creationTime(handle: WinHandle): string | null {
    return this.table.get(handle.pid)?.created ?? null;
  }

  close(handle: WinHandle): void {
    this.openHandles.set(handle.pid, (this.openHandles.get(handle.pid) ?? 1) - 1);
  }

  terminate(handle: WinHandle): boolean {
    if ((handle as WinHandle & { access: string }).access !== 'terminate') return false;
    const target = this.table.get(handle.pid);
    if (!target || target.exited) return false;
    target.exited = true;
    this.terminated.push(handle.pid);
    return true;
  }

  processes(): { pid: number; parentPid: number }[] {
    return [...this.table.values()].filter((p) => !p.exited).map((p) => ({ pid: p.pid, parentPid: p.parentPid }));
  }

  createJob(): unknown {
    const id = this.#nextJob++;
    this.jobs.set(id, new Set());
    return id;
  }

  assignToJob(job: unknown, pid: number): boolean {
    const target = this.table.get(pid);
    if (!target || target.exited) return false;
    this.jobs.get(job as number)!.add(pid);
    return true;
  }

  jobProcessIds(job: unknown): number[] {
    return [...this.jobs.get(job as number)!].filter((pid) => !this.table.get(pid)?.exited);
  }

  terminateJob(job: unknown): boolean {
    for (const pid of this.jobs.get(job as number)!) {
      const target = this.table.get(pid);
      if (target && !target.exited) {
        target.exited = true;
        this.terminated.push(pid);
      }
    }
    return true;
  }

  closeJob(job: unknown): void {
    this.jobs.delete(job as number);
  }
}

/** What win32Os() gives when koffi cannot load kernel32: every call throws. */
export function brokenWindows(reason = 'koffi could not load kernel32.dll'): WindowsOs {
  const fail = (): never => {
    throw new Error(reason);
  };
  return {
    open: fail,
    isRunning: fail,
    creationTime: fail,
    close: fail,
    terminate: fail,
    processes: fail,
    createJob: fail,
    assignToJob: fail,
    jobProcessIds: fail,
    terminateJob: fail,
    closeJob: fail,
  };
}
