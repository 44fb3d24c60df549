import { spawnSync } from 'node:child_process';
import { linuxStat, sendSignal } from './unix-os.js';

/**
 * Stopping one process Drover did not start: it is signalled alone, never as a group (its group
 * may hold the person's shell), after checks that keep Drover from ending itself or the system.
 */

/** Between polls of a dying process: short, so the answer comes soon after the death. */
export const DEATH_POLL_MS = 20;
/** How long SIGKILL is given to take before the process is reported as surviving it. */
export const KILL_CONFIRM_MS = 3_000;

export type PidFailure = 'refused' | 'missing' | 'denied' | 'survived' | 'unsupported';

/** Why a pid was not (or could not be) ended; `kind` tells the caller which, the message says it in words. */
export class PidSignalError extends Error {
  readonly kind: PidFailure;
  constructor(kind: PidFailure, message: string) {
    super(message);
    this.name = 'PidSignalError';
    this.kind = kind;
  }
}

export interface PidEnded {
  pid: number;
  /** The signal that ended it: SIGTERM within the grace, else SIGKILL. */
  signal: 'SIGTERM' | 'SIGKILL';
}

/** macOS and the BSDs: `ps` gives the group and state; start time as it prints it. */
function psFields(pid: number): { pgid: string; state: string; start: string } | null {
  const result = spawnSync('ps', ['-o', 'pgid=,stat=,lstart=', '-p', String(pid)], { encoding: 'utf8' });
  const line = result.status === 0 ? result.stdout.trim() : '';
  const match = /^(\d+)\s+(\S+)\s+(.*)$/.exec(line);
  return match ? { pgid: match[1]!, state: match[2]!, start: match[3]! } : null;
}

/** A process's group, state and start (to tell a reused pid from it); null when there is no such process. */
function facts(pid: number | 'self'): { pgid: string; state: string; start: string } | null {
  if (process.platform === 'linux') {
    const stat = linuxStat(pid);
    return stat ? { pgid: stat[2]!, state: stat[0]!, start: stat[19]! } : null;
  }
  return psFields(pid === 'self' ? process.pid : pid);
}

/** The process group of a pid, or null when there is no such process. */
export function processGroupOf(pid: number): number | null {
  const pgid = facts(pid)?.pgid;
  return pgid ? Number(pgid) : null;
}

/** Why this pid must never be signalled by Drover, or null. */
export function refusal(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 1)
    return `pid ${pid} is not one process: to kill(2), 0 and -1 mean many processes and 1 is init`;
  if (pid === process.pid) return `pid ${pid} is Drover itself`;
  if (pid === process.ppid) return `pid ${pid} is the process that started Drover`;
  const own = facts('self')?.pgid;
  const theirs = facts(pid)?.pgid;
  if (own && theirs === own) return `pid ${pid} is in Drover's own process group (${own})`;
  return null;
}

/** Whether it is gone: no such process, a zombie (dead, waiting to be reaped), or its pid now names another process. */
function gone(pid: number, start: string | null): boolean {
  const now = facts(pid);
  if (!now) return true;
  if (now.state.startsWith('Z')) return true;
  return start !== null && now.start !== start;
}

/** Polls the OS until the process is gone or `limitMs` passes; true when it went. */
async function waitGone(pid: number, start: string | null, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (!gone(pid, start)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(DEATH_POLL_MS, limitMs)));
  }
  return true;
}

/**
 * Checks that one process may be signalled by Drover and exists, before anything is sent (or the
 * person is asked): refused, missing or denied throw PidSignalError. Answers its start time, which
 * pins it: a later signalPid with it ends only that process, never one that reuses its pid.
 */
export function checkSignalable(pid: number): { start: string | null } {
  if (process.platform === 'win32')
    throw new PidSignalError('unsupported', 'stopping a process by pid is unsupported on Windows');
  const refused = refusal(pid);
  if (refused) throw new PidSignalError('refused', refused);
  const probe = sendSignal(pid, 0);
  if (probe === 'denied')
    throw new PidSignalError('denied', `pid ${pid} is running but not permitted to be signalled by Drover`);
  const start = facts(pid)?.start ?? null;
  if (probe === 'missing' || gone(pid, start)) throw new PidSignalError('missing', `no process has pid ${pid}`);
  return { start };
}

/**
 * Ends one process alone: checks it may be signalled and exists, sends SIGTERM and SIGCONT (a
 * stopped process never acts on SIGTERM), SIGKILL after `graceMs`, and confirms the death.
 * `pinned` (from checkSignalable): the process must still be that one. Throws PidSignalError:
 * refused, missing, denied (alive but not ours to signal), or survived.
 */
export async function signalPid(pid: number, graceMs: number, pinned?: { start: string | null }): Promise<PidEnded> {
  const { start } = checkSignalable(pid);
  if (pinned && pinned.start !== null && start !== pinned.start)
    throw new PidSignalError(
      'missing',
      `pid ${pid} has ended; the pid now names another process, which was left alone`,
    );
  sendSignal(pid, 'SIGTERM');
  sendSignal(pid, 'SIGCONT');
  if (await waitGone(pid, start, graceMs)) return { pid, signal: 'SIGTERM' };
  // Only the same process is killed: a pid reused during the grace names someone else.
  if (!gone(pid, start)) sendSignal(pid, 'SIGKILL');
  if (await waitGone(pid, start, KILL_CONFIRM_MS)) return { pid, signal: 'SIGKILL' };
  const state = facts(pid)?.state ?? 'unknown';
  throw new PidSignalError(
    'survived',
    `pid ${pid} is still running ${KILL_CONFIRM_MS / 1000} s after SIGKILL (state ${state}); it was not ended`,
  );
}
