import type { ProcessIdentity, ReapResult, Verdict, WindowsMember } from './identity.js';
import { foreignMark } from './leftovers-unix.js';
import { ProbeFailure } from './unix-os.js';
import type { WinHandle, WindowsOs } from './windows-os.js';

type Proof = 'alive' | 'gone' | 'denied' | 'reused';

/** Whether the process with this pid is running and is the one created at `created`. */
function prove(os: WindowsOs, member: WindowsMember): Proof {
  const handle = os.open(member.pid, 'query');
  if (handle === 'missing' || handle === 'denied') return handle === 'missing' ? 'gone' : 'denied';
  try {
    if (!os.isRunning(handle)) return 'gone';
    return os.creationTime(handle) === member.created ? 'alive' : 'reused';
  } finally {
    os.close(handle);
  }
}

/** The leader and every process recorded from the task's job: each can be proven on its own, so a leader that exited is no dead end. */
function candidates(identity: ProcessIdentity): WindowsMember[] {
  const out: WindowsMember[] = [];
  if (identity.pid && identity.processStart !== null) out.push({ pid: identity.pid, created: identity.processStart });
  for (const member of identity.members) if (!out.some((known) => known.pid === member.pid)) out.push(member);
  return out;
}

/**
 * Windows: a process object outlives the process while anyone holds a handle, and opening by
 * number matches any process. So each candidate must be running (a zero-timeout wait) with its
 * exact recorded creation time. Access denied means "it exists but cannot be proven ours", never
 * "it has ended"; a missing identity fails closed.
 */
export function probeWindows(identity: ProcessIdentity, os: WindowsOs, instanceId: string): Verdict {
  const foreign = foreignMark(identity, instanceId);
  if (foreign) return { alive: false, reason: foreign, undetermined: true };
  if (!identity.pid || identity.processStart === null)
    return {
      alive: false,
      reason: 'recorded before process identity existed; it cannot be proven',
      undetermined: true,
    };
  try {
    const proofs = candidates(identity).map((member) => prove(os, member));
    if (proofs.includes('alive')) return { alive: true };
    if (proofs.includes('denied'))
      return {
        alive: false,
        reason: "a process with its number is running, but Windows denies the access needed to prove it is Drover's",
        undetermined: true,
      };
    if (proofs[0] === 'reused' && proofs.length === 1)
      return { alive: false, reason: 'its number now belongs to another process' };
    return { alive: false, reason: 'its processes have ended' };
  } catch (error) {
    if (error instanceof ProbeFailure)
      return { alive: false, reason: `it could not be checked: ${error.message}`, undetermined: true };
    throw error;
  }
}

/**
 * Ends what is provably the task's: each recorded process that is still the one recorded, and
 * the descendants proven from them (see endProvenTree), each terminated through a handle held
 * open the whole time so its number cannot be reused in between.
 */
export function reapWindows(identity: ProcessIdentity, os: WindowsOs, instanceId: string): ReapResult {
  const verdict = probeWindows(identity, os, instanceId);
  if (!verdict.alive) return { ended: [], refused: verdict.reason };
  try {
    return { ended: endProvenTree(os, candidates(identity)), refused: null };
  } catch (error) {
    if (error instanceof ProbeFailure) return { ended: [], refused: `it could not be ended: ${error.message}` };
    throw error;
  }
}

/**
 * Terminates the given roots and their descendants. Parent links on Windows are never updated,
 * so a process naming a root as its parent may only have inherited the number: a child counts
 * only when it was created at or after its parent. Every handle stays open until all are
 * terminated. Returns the pids terminated.
 */
export function endProvenTree(os: WindowsOs, roots: readonly WindowsMember[]): number[] {
  const held = new Map<number, { handle: WinHandle; created: string }>();
  const hold = (member: WindowsMember): boolean => {
    if (held.has(member.pid)) return false;
    const handle = os.open(member.pid, 'terminate');
    if (handle === 'missing' || handle === 'denied') return false;
    const created = os.creationTime(handle);
    if (created === null || created !== member.created || !os.isRunning(handle)) {
      os.close(handle);
      return false;
    }
    held.set(member.pid, { handle, created });
    return true;
  };
  try {
    const queue = roots.filter(hold).map((root) => root.pid);
    const table = queue.length > 0 ? os.processes() : [];
    while (queue.length > 0) {
      const parent = queue.shift()!;
      const parentCreated = BigInt(held.get(parent)!.created);
      for (const entry of table) {
        if (entry.parentPid !== parent || held.has(entry.pid)) continue;
        const handle = os.open(entry.pid, 'terminate');
        if (handle === 'missing' || handle === 'denied') continue;
        const created = os.creationTime(handle);
        if (created === null || BigInt(created) < parentCreated) {
          os.close(handle);
          continue;
        }
        held.set(entry.pid, { handle, created });
        queue.push(entry.pid);
      }
    }
    const ended: number[] = [];
    for (const [pid, { handle }] of held) if (os.terminate(handle)) ended.push(pid);
    return ended;
  } finally {
    for (const { handle } of held.values()) os.close(handle);
  }
}
