import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { Cgroups, findCgroup2 } from './cgroup.js';

export type SignalOutcome = 'ok' | 'missing' | 'denied';

/** An OS question that could not be answered (a tool failed): never to be read as "no such process". */
export class ProbeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProbeFailure';
  }
}

/** The cgroup operations the leftover logic needs (Linux with cgroup v2). */
export interface CgroupOps {
  exists(path: string): boolean;
  /** Null when the cgroup is gone. */
  populated(path: string): boolean | null;
  members(path: string): number[];
  /** Signals every member (frozen meanwhile where the kernel can); returns them. */
  signal(path: string, signal: NodeJS.Signals): number[];
  kill(path: string): void;
  remove(path: string): boolean;
}

/** The few unix facilities the leftover and containment logic needs; a fake stands in for it in tests. */
export interface UnixOs {
  signalGroup(pgid: number, signal: NodeJS.Signals | 0): SignalOutcome;
  signalProcess(pid: number, signal: NodeJS.Signals | 0): SignalOutcome;
  /** The OS start time of the process with this pid, or null when there is none. Throws ProbeFailure when it cannot tell. */
  startTime(pid: number): string | null;
  bootId(): string | null;
  /** Members of a process group that have not exited (zombies, dead and waiting to be reaped, are left out). Throws ProbeFailure when it cannot tell. */
  groupMembers(pgid: number): number[];
  /** The value of a mark variable in a process's environment; 'unreadable' when the environment cannot be read. */
  markOf(pid: number, variable: string): string | null | 'unreadable';
  /** Every process carrying this mark variable, by value (one scan of the process table). */
  markedProcesses(variable: string): Map<string, number[]>;
  /** A process's scheduler state in words ("D (uninterruptible sleep)"), or null when unknown. */
  processState(pid: number): string | null;
  /** Linux with cgroup v2 mounted; absent elsewhere. */
  cgroups?: CgroupOps;
}

/** Sends `sig` to a pid (negative: a process group); 'missing' and 'denied' instead of throwing. */
export function sendSignal(target: number, sig: NodeJS.Signals | 0): SignalOutcome {
  try {
    process.kill(target, sig);
    return 'ok';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'denied' : 'missing';
  }
}

/** Refuses the numbers that mean "everyone" to kill(2). */
function checkedTarget(n: number): number {
  if (!Number.isInteger(n) || n <= 1) throw new Error(`refusing to signal ${n}`);
  return n;
}

/** The fields of /proc/<pid>/stat after the command name: [0] state, [2] pgrp, [3] session, [19] start time; null when it is gone. */
export function linuxStat(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function numericDirs(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

function readEnvironment(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/environ`).toString('utf8').split('\0');
  } catch {
    return null;
  }
}

function valueIn(entries: readonly string[], variable: string): string | null {
  const prefix = `${variable}=`;
  for (const entry of entries) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return null;
}

const LINUX_STATES: Record<string, string> = {
  R: 'running',
  S: 'sleeping',
  D: 'uninterruptible sleep',
  T: 'stopped',
  t: 'stopped by a tracer',
  Z: 'zombie',
  X: 'dead',
  I: 'idle',
};

export function linuxOs(): UnixOs {
  const os: UnixOs = {
    signalGroup: (pgid, sig) => sendSignal(-checkedTarget(pgid), sig),
    signalProcess: (pid, sig) => sendSignal(checkedTarget(pid), sig),
    // Field 22 of stat: start time in clock ticks since boot.
    startTime: (pid) => linuxStat(pid)?.[19] ?? null,
    bootId: () => {
      try {
        return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      } catch {
        return null;
      }
    },
    groupMembers: (pgid) =>
      numericDirs().filter((pid) => {
        const stat = linuxStat(pid);
        return stat?.[2] === String(pgid) && stat[0] !== 'Z';
      }),
    markOf: (pid, variable) => {
      const entries = readEnvironment(pid);
      return entries === null ? 'unreadable' : valueIn(entries, variable);
    },
    markedProcesses: (variable) => {
      const found = new Map<string, number[]>();
      for (const pid of numericDirs()) {
        if (pid === process.pid) continue;
        const entries = readEnvironment(pid);
        const value = entries && valueIn(entries, variable);
        if (value) found.set(value, [...(found.get(value) ?? []), pid]);
      }
      return found;
    },
    processState: (pid) => {
      const code = linuxStat(pid)?.[0];
      return code ? `${code} (${LINUX_STATES[code] ?? 'unknown'})` : null;
    },
  };
  const hierarchy = findCgroup2();
  if (hierarchy) os.cgroups = new Cgroups(hierarchy);
  return os;
}

/** Runs a program and gives back its exit status and output; a stand-in replaces it in tests. */
export type RunTool = (
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
) => { status: number | null; stdout: string; error?: Error };

const runTool: RunTool = (file, args, env) => {
  const result = spawnSync(file, [...args], {
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 10_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout ?? '', ...(result.error ? { error: result.error } : {}) };
};

/** Called by absolute path: a `ps` in the working folder or early on PATH must never answer for the system's. */
export const PS = '/bin/ps';
export const SYSCTL = '/usr/sbin/sysctl';
/** Start times come out in one fixed format: English month names, UTC, whatever the person's locale and zone. */
export const PS_ENV: NodeJS.ProcessEnv = { LC_ALL: 'C', TZ: 'UTC0', PATH: '/usr/bin:/bin:/usr/sbin:/sbin' };

/**
 * macOS and the BSDs: start times, groups and environments from ps, the boot from sysctl. Only
 * `ps` exiting 1 with nothing printed means "no such process"; any other failure (not found,
 * killed, out of memory) is a ProbeFailure, so a check that could not run never reads as "gone".
 */
export function bsdOs(run: RunTool = runTool): UnixOs {
  const ps = (args: readonly string[]): string | null => {
    const result = run(PS, args, PS_ENV);
    if (result.status === 0) return result.stdout;
    if (result.status === 1 && result.stdout.trim() === '' && !result.error) return null;
    throw new ProbeFailure(
      `${PS} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? 'by a signal'}`})`,
    );
  };
  const table = (args: readonly string[]): [number, string][] =>
    (ps(args) ?? '')
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [Number(match[1]), match[2]!]);
  // `ps -E` appends the environment to the command line. The mark is looked for only in what follows
  // the arguments (read apart), so a command that merely mentions a mark is never taken for marked.
  const markIn = (environment: string, variable: string): string | null =>
    new RegExp(`(?:^|\\s)${variable}=(\\S+)`).exec(environment)?.[1] ?? null;
  const environmentOf = (args: string, withEnvironment: string): string | null => {
    const [own, all] = [args.trimEnd(), withEnvironment.trimEnd()];
    return all.startsWith(own) ? all.slice(own.length) : null;
  };
  return {
    signalGroup: (pgid, sig) => sendSignal(-checkedTarget(pgid), sig),
    signalProcess: (pid, sig) => sendSignal(checkedTarget(pid), sig),
    startTime: (pid) => ps(['-o', 'lstart=', '-p', String(pid)])?.trim() || null,
    bootId: () => {
      const result = run(SYSCTL, ['-n', 'kern.bootsessionuuid'], PS_ENV);
      return result.status === 0 ? result.stdout.trim() || null : null;
    },
    groupMembers: (pgid) =>
      table(['-A', '-o', 'pid=,pgid=,stat='])
        .filter(([, rest]) => {
          const [group, stat] = rest.trim().split(/\s+/);
          return group === String(pgid) && !stat?.startsWith('Z');
        })
        .map(([pid]) => pid),
    markOf: (pid, variable) => {
      let args: string | null;
      let withEnvironment: string | null;
      try {
        args = ps(['-ww', '-o', 'command=', '-p', String(pid)]);
        withEnvironment = ps(['-E', '-ww', '-o', 'command=', '-p', String(pid)]);
      } catch {
        return 'unreadable';
      }
      const environment = args !== null && withEnvironment !== null ? environmentOf(args, withEnvironment) : null;
      return environment === null ? 'unreadable' : markIn(environment, variable);
    },
    markedProcesses: (variable) => {
      const args = new Map(table(['-A', '-ww', '-o', 'pid=,command=']));
      const found = new Map<string, number[]>();
      for (const [pid, line] of table(['-A', '-E', '-ww', '-o', 'pid=,command='])) {
        const own = args.get(pid);
        if (pid === process.pid || own === undefined) continue;
        const environment = environmentOf(own, line);
        const value = environment === null ? null : markIn(environment, variable);
        if (value) found.set(value, [...(found.get(value) ?? []), pid]);
      }
      return found;
    },
    processState: (pid) => {
      try {
        return ps(['-o', 'stat=', '-p', String(pid)])?.trim() || null;
      } catch {
        return null;
      }
    },
  };
}

export function currentUnixOs(): UnixOs {
  return process.platform === 'linux' ? linuxOs() : bsdOs();
}
