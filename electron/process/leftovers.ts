import type { ProcessIdentity, ReapResult, Verdict } from './identity.js';
import type { UnixOs } from './unix-os.js';
import type { WindowsOs } from './windows-os.js';

/** Between SIGTERM and SIGKILL when reaping, and how often the group is looked at meanwhile. */
export const REAP_GRACE_MS = 3_000;
const REAP_POLL_MS = 50;

/**
 * Is this task's process group still on this machine, and provably ours?
 *
 * The group probe (kill(-pgid, 0)) finds a group that outlived its leader, which is exactly
 * the survivor worth finding; but once every member has died the number is free and an
 * unrelated process could lead a group with it. So the group counts as ours only when the
 * boot is the same and either no process has the leader's pid (survivors of our group keep
 * the number reserved) or the one that has it started when ours did. Where members'
 * environments can be read (Linux), at least one must carry the task's mark.
 */
export function probeUnix(identity: ProcessIdentity, os: UnixOs): Verdict {
  const pgid = identity.pgid;
  if (!pgid || pgid <= 1) return { alive: false, reason: 'no process group was recorded' };
  if (identity.bootId) {
    const boot = os.bootId();
    if (boot !== null && boot !== identity.bootId) return { alive: false, reason: 'the machine has restarted since' };
  }
  if (os.signalGroup(pgid, 0) === 'missing') return { alive: false, reason: 'its process group has ended' };
  const leaderStart = os.startTime(pgid);
  if (leaderStart !== null) {
    if (identity.processStart === null) return { alive: false, reason: 'no start time was recorded, so the process now using its number cannot be told apart' };
    if (leaderStart !== identity.processStart) return { alive: false, reason: 'its number now belongs to another process' };
  }
  if (os.groupMembers && os.markOf) {
    const marks = os.groupMembers(pgid).map((pid) => os.markOf!(pid));
    if (marks.length > 0 && !marks.includes('unreadable') && !marks.includes(identity.taskId)) {
      return { alive: false, reason: 'the processes in its group do not carry its mark' };
    }
  }
  return { alive: true };
}

/**
 * Windows: a process object outlives the process while anyone holds a handle, and opening
 * by number matches any process. So: the handle must report not-yet-exited, and its exact
 * creation time must equal the recorded one. A missing identity fails closed.
 */
export function probeWindows(identity: ProcessIdentity, os: WindowsOs): Verdict {
  if (!identity.pid || identity.processStart === null) return { alive: false, reason: 'recorded before process identity existed; it cannot be proven' };
  const handle = os.open(identity.pid);
  if (!handle) return { alive: false, reason: 'its process has ended' };
  try {
    if (!os.isRunning(handle)) return { alive: false, reason: 'its process has ended' };
    if (os.creationTime(handle) !== identity.processStart) return { alive: false, reason: 'its number now belongs to another process' };
    return { alive: true };
  } finally {
    os.close(handle);
  }
}

/** Ends a leftover's whole group (SIGTERM and SIGCONT, SIGKILL after the grace), then any escapee carrying its mark. */
export async function reapUnix(identity: ProcessIdentity, os: UnixOs, graceMs = REAP_GRACE_MS): Promise<ReapResult> {
  const verdict = probeUnix(identity, os);
  const ended: number[] = [];
  if (verdict.alive) {
    const pgid = identity.pgid!;
    ended.push(...(os.groupMembers?.(pgid) ?? [pgid]));
    os.signalGroup(pgid, 'SIGTERM');
    os.signalGroup(pgid, 'SIGCONT');
    await waitUntil(() => os.signalGroup(pgid, 0) === 'missing', graceMs);
    if (os.signalGroup(pgid, 0) !== 'missing') os.signalGroup(pgid, 'SIGKILL');
  }
  const escapees = await endEscapees(identity.taskId, os, graceMs);
  ended.push(...escapees.filter((pid) => !ended.includes(pid)));
  if (!verdict.alive && escapees.length === 0) return { ended: [], refused: verdict.reason };
  return { ended, refused: null };
}

/**
 * Processes that left the task's group (setsid, a daemonising server) but still carry its
 * mark. Each is checked again just before it is signalled.
 */
export async function endEscapees(taskId: string, os: UnixOs, graceMs = REAP_GRACE_MS): Promise<number[]> {
  if (!os.processesWithMark || !os.markOf) return [];
  const found = os.processesWithMark(taskId);
  const signalled: number[] = [];
  for (const pid of found) {
    if (os.markOf(pid) !== taskId) continue;
    os.signalProcess(pid, 'SIGTERM');
    os.signalProcess(pid, 'SIGCONT');
    signalled.push(pid);
  }
  if (signalled.length === 0) return [];
  await waitUntil(() => signalled.every((pid) => os.signalProcess(pid, 0) === 'missing' || os.markOf!(pid) !== taskId), graceMs);
  for (const pid of signalled) if (os.signalProcess(pid, 0) !== 'missing' && os.markOf(pid) === taskId) os.signalProcess(pid, 'SIGKILL');
  return signalled;
}

/**
 * Windows: re-open the pid, re-check the creation time, and hold that handle for the whole
 * of taskkill, so nothing can inherit the number in between. Liveness is not required: a
 * leader that already exited can have running children, and those are the point.
 */
export async function reapWindows(identity: ProcessIdentity, os: WindowsOs): Promise<ReapResult> {
  if (!identity.pid || identity.processStart === null) return { ended: [], refused: 'recorded before process identity existed; it cannot be proven' };
  const handle = os.open(identity.pid);
  if (!handle) return { ended: [], refused: 'its process has ended' };
  try {
    if (os.creationTime(handle) !== identity.processStart) return { ended: [], refused: 'its number now belongs to another process' };
    const killed = await os.killTree(identity.pid);
    return killed ? { ended: [identity.pid], refused: null } : { ended: [], refused: 'taskkill could not end it' };
  } finally {
    os.close(handle);
  }
}

async function waitUntil(done: () => boolean, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, REAP_POLL_MS));
}
