import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { TASK_MARK_VARIABLE } from './identity.js';

export type SignalOutcome = 'ok' | 'missing' | 'denied';

/** The few unix facilities the leftover logic needs; a fake stands in for it in tests. */
export interface UnixOs {
  signalGroup(pgid: number, signal: NodeJS.Signals | 0): SignalOutcome;
  signalProcess(pid: number, signal: NodeJS.Signals | 0): SignalOutcome;
  /** The OS start time of the process with this pid, or null when there is none. */
  startTime(pid: number): string | null;
  bootId(): string | null;
  /** Linux only: members of a process group. */
  groupMembers?(pgid: number): number[];
  /** Linux only: the task mark in a process's environment; 'unreadable' when it cannot be read. */
  markOf?(pid: number): string | null | 'unreadable';
  /** Linux only: processes anywhere whose environment carries this task's mark. */
  processesWithMark?(taskId: string): number[];
}

function signal(target: number, sig: NodeJS.Signals | 0): SignalOutcome {
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

function linuxStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function numericDirs(): number[] {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
}

function readMark(pid: number): string | null | 'unreadable' {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return 'unreadable';
  }
  const prefix = `${TASK_MARK_VARIABLE}=`;
  for (const entry of environ.toString('utf8').split('\0')) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return null;
}

export function linuxOs(): UnixOs {
  return {
    signalGroup: (pgid, sig) => signal(-checkedTarget(pgid), sig),
    signalProcess: (pid, sig) => signal(checkedTarget(pid), sig),
    // Field 22 of stat: start time in clock ticks since boot.
    startTime: (pid) => linuxStat(pid)?.[19] ?? null,
    bootId: () => {
      try {
        return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      } catch {
        return null;
      }
    },
    groupMembers: (pgid) => numericDirs().filter((pid) => linuxStat(pid)?.[2] === String(pgid)),
    markOf: readMark,
    processesWithMark: (taskId) => numericDirs().filter((pid) => pid !== process.pid && readMark(pid) === taskId),
  };
}

/** macOS and the BSDs: start time and boot time from ps and sysctl; no environment scan. */
export function bsdOs(): UnixOs {
  return {
    signalGroup: (pgid, sig) => signal(-checkedTarget(pgid), sig),
    signalProcess: (pid, sig) => signal(checkedTarget(pid), sig),
    startTime: (pid) => {
      try {
        const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
        return out || null;
      } catch {
        return null;
      }
    },
    bootId: () => {
      try {
        return execFileSync('sysctl', ['-n', 'kern.boottime'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
      } catch {
        return null;
      }
    },
  };
}

export function currentUnixOs(): UnixOs {
  return process.platform === 'linux' ? linuxOs() : bsdOs();
}
