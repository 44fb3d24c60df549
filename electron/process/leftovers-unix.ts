import { isTaskCgroupPath } from './cgroup.js';
import {
  LEGACY_MARK_VARIABLE,
  markInstance,
  type Mark,
  type ProcessIdentity,
  type ReapResult,
  type Verdict,
} from './identity.js';
import { ProbeFailure, type UnixOs } from './unix-os.js';

/** Between SIGTERM and SIGKILL when reaping, and how often the processes are looked at meanwhile. */
export const REAP_GRACE_MS = 3_000;
/** After SIGKILL, how long processes may take to disappear before the reap reports them stuck. */
export const KILL_CONFIRM_MS = 3_000;
const REAP_POLL_MS = 50;

/** What a probe knows beyond the record: whose Drover is asking, and one scan of marked processes. */
export interface ProbeContext {
  instanceId: string;
  /** Processes carrying this instance's mark variable, by task id; scanned once and shared by every probe of a listing. */
  marked?: () => Map<string, number[]>;
}

/**
 * What is provably left of a task: its container (the cgroup, or the process group) and, apart
 * from it, processes carrying its exact mark. Each part is acted on only when it is proven, so a
 * proven escapee never lends its proof to a group number that now belongs to someone else.
 */
interface Proof {
  container: Verdict;
  escapees: number[];
}

/**
 * Is this task of an earlier run still on this machine, and provably this Drover's?
 *
 * With a cgroup the cgroup is the identity: it is named after this instance and the task, and it
 * exists only while something keeps it; no pid is trusted.
 *
 * Without one, the process group must be proven: the boot is the same; the leader is either
 * present with the recorded start time, or absent with a member carrying the task's exact mark
 * (this instance's variable, this task's id). A check that could not run refuses; nothing is
 * guessed. Processes that left the group but kept the mark count too.
 */
export function probeUnix(identity: ProcessIdentity, os: UnixOs, context: ProbeContext): Verdict {
  const proof = prove(identity, os, context);
  // A reboot ended everything; every other refusal only says the processes cannot be proven either way.
  if ('refused' in proof)
    return proof.rebooted
      ? { alive: false, reason: proof.refused }
      : { alive: false, reason: proof.refused, undetermined: true };
  if (proof.container.alive || proof.escapees.length === 0) return proof.container;
  return { alive: true };
}

function prove(
  identity: ProcessIdentity,
  os: UnixOs,
  context: ProbeContext,
): Proof | { refused: string; rebooted?: true } {
  const foreign = foreignMark(identity, context.instanceId);
  if (foreign) return { refused: foreign };
  if (identity.bootId) {
    const boot = os.bootId();
    if (boot !== null && boot !== identity.bootId)
      return { refused: 'the machine has restarted since', rebooted: true };
  }
  try {
    const container = identity.cgroup !== null ? proveCgroup(identity, os, context) : proveGroup(identity, os);
    const marked = identity.mark
      ? context.marked
        ? context.marked()
        : os.markedProcesses(identity.mark.variable)
      : new Map<string, number[]>();
    return { container, escapees: identity.mark ? (marked.get(identity.mark.value) ?? []) : [] };
  } catch (error) {
    if (error instanceof ProbeFailure) return { refused: `it could not be checked: ${error.message}` };
    throw error;
  }
}

/** A record of another instance (a copied data folder) never claims processes: they cannot be proven this Drover's. */
export function foreignMark(identity: ProcessIdentity, instanceId: string): string | null {
  if (identity.mark === null || markInstance(identity.mark) === instanceId) return null;
  return "it was recorded by another copy of this data folder, so its processes cannot be proven to be this Drover's";
}

/** Only a cgroup this instance makes for this task is ever acted on: never a damaged or crafted path. */
function ownCgroup(identity: ProcessIdentity, instanceId: string): string | null {
  return identity.cgroup !== null && isTaskCgroupPath(identity.cgroup, instanceId, identity.taskId)
    ? identity.cgroup
    : null;
}

function proveCgroup(identity: ProcessIdentity, os: UnixOs, context: ProbeContext): Verdict {
  const path = ownCgroup(identity, context.instanceId);
  if (!path)
    return { alive: false, reason: 'its recorded cgroup is not one this Drover made for it', undetermined: true };
  if (!os.cgroups)
    return { alive: false, reason: 'its cgroup cannot be checked: cgroup v2 is not mounted now', undetermined: true };
  const populated = os.cgroups.populated(path);
  if (populated === null) return { alive: false, reason: 'its cgroup is gone' };
  if (!populated) {
    os.cgroups.remove(path);
    return { alive: false, reason: 'every process in its cgroup has ended' };
  }
  return { alive: true };
}

function proveGroup(identity: ProcessIdentity, os: UnixOs): Verdict {
  const pgid = identity.pgid;
  if (!pgid || pgid <= 1) return { alive: false, reason: 'no process group was recorded' };
  if (os.signalGroup(pgid, 0) === 'missing') return { alive: false, reason: 'its process group has ended' };
  const leaderStart = os.startTime(pgid);
  const mark = identity.mark ?? { variable: LEGACY_MARK_VARIABLE, value: identity.taskId };
  const marks = () => os.groupMembers(pgid).map((pid) => os.markOf(pid, mark.variable));
  if (leaderStart !== null) {
    if (identity.processStart === null)
      return {
        alive: false,
        reason: 'no start time was recorded, so the process now using its number cannot be told apart',
        undetermined: true,
      };
    if (leaderStart !== identity.processStart)
      return { alive: false, reason: 'its number now belongs to another process' };
    const seen = marks();
    if (seen.length > 0 && !seen.includes('unreadable') && !seen.includes(mark.value)) {
      // Its leader, with the recorded start time, still runs (a task that cleared its environment,
      // say): not ours to signal without the mark, but never proof that the task is gone.
      return { alive: false, reason: 'the processes in its group do not carry its mark', undetermined: true };
    }
    return { alive: true };
  }
  // The leader is gone: only the mark can say the group is still ours.
  if (identity.mark === null) {
    return {
      alive: false,
      reason:
        "its leader is gone and it was recorded before Drover kept instance ids, so its group cannot be told from another Drover's",
      undetermined: true,
    };
  }
  const seen = marks();
  if (seen.includes(mark.value)) return { alive: true };
  return seen.includes('unreadable')
    ? {
        alive: false,
        reason: 'its leader is gone and no process in its group can be proven to carry its mark',
        undetermined: true,
      }
    : { alive: false, reason: 'its leader is gone and no process in its group carries its mark' };
}

/**
 * Ends a leftover: what is in its proven cgroup or group, with SIGTERM and SIGCONT, then SIGKILL
 * after the grace; then any process elsewhere that carries its exact mark. A part that cannot be
 * proven is left alone; when nothing can be, the reap is refused with the reason.
 */
export async function reapUnix(
  identity: ProcessIdentity,
  os: UnixOs,
  context: ProbeContext,
  graceMs = REAP_GRACE_MS,
): Promise<ReapResult> {
  const proof = prove(identity, os, context);
  if ('refused' in proof) return { ended: [], refused: proof.refused };
  if (!proof.container.alive && proof.escapees.length === 0) return { ended: [], refused: proof.container.reason };
  const ended: number[] = [];
  const cgroup = ownCgroup(identity, context.instanceId);
  if (proof.container.alive && cgroup && os.cgroups) {
    const cgroups = os.cgroups;
    ended.push(...cgroups.signal(cgroup, 'SIGTERM'));
    cgroups.signal(cgroup, 'SIGCONT');
    await waitUntil(() => cgroups.populated(cgroup) !== true, graceMs);
    if (cgroups.populated(cgroup) === true) cgroups.kill(cgroup);
    await waitUntil(() => cgroups.populated(cgroup) !== true, KILL_CONFIRM_MS);
    cgroups.remove(cgroup);
  } else if (proof.container.alive && identity.cgroup === null && identity.pgid) {
    const pgid = identity.pgid;
    ended.push(...os.groupMembers(pgid));
    os.signalGroup(pgid, 'SIGTERM');
    os.signalGroup(pgid, 'SIGCONT');
    await waitUntil(() => os.signalGroup(pgid, 0) === 'missing', graceMs);
    if (os.signalGroup(pgid, 0) !== 'missing') os.signalGroup(pgid, 'SIGKILL');
  }
  if (identity.mark)
    for (const pid of await endMarked(identity.mark, os, graceMs)) if (!ended.includes(pid)) ended.push(pid);
  return { ended, refused: null };
}

/**
 * Ends every process carrying this exact mark (a task's processes that left its group or
 * cgroup). Each is checked again just before it is signalled.
 */
async function endMarked(mark: Mark, os: UnixOs, graceMs = REAP_GRACE_MS): Promise<number[]> {
  const found = os.markedProcesses(mark.variable).get(mark.value) ?? [];
  const stillMarked = (pid: number) => os.markOf(pid, mark.variable) === mark.value;
  const signalled: number[] = [];
  for (const pid of found) {
    if (!stillMarked(pid)) continue;
    os.signalProcess(pid, 'SIGTERM');
    os.signalProcess(pid, 'SIGCONT');
    signalled.push(pid);
  }
  if (signalled.length === 0) return [];
  // Polled by existence alone (reading a mark is a `ps` per process on macOS); the mark is read again before SIGKILL.
  await waitUntil(() => signalled.every((pid) => os.signalProcess(pid, 0) === 'missing'), graceMs);
  for (const pid of signalled)
    if (os.signalProcess(pid, 0) !== 'missing' && stillMarked(pid)) os.signalProcess(pid, 'SIGKILL');
  return signalled;
}

export async function waitUntil(done: () => boolean, limitMs: number, pollMs = REAP_POLL_MS): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}
