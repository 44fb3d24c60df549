import { markFor, type ProcessIdentity, type ReapResult, type Verdict } from './identity.js';
import { probeUnix, reapUnix } from './leftovers-unix.js';
import { probeWindows, reapWindows } from './leftovers-windows.js';
import { MarkScan } from './mark-scan.js';
import type { UnixOs } from './unix-os.js';
import type { WindowsOs } from './windows-os.js';

/** What the pool asks of the OS about processes: identity at launch, and leftovers later. */
export interface ProcessInspector {
  /** The OS identity of a process just started, recorded so a later run can prove it. */
  identify(pid: number): { processStart: string | null; bootId: string | null };
  probe(identity: ProcessIdentity): Verdict;
  reap(identity: ProcessIdentity): Promise<ReapResult>;
}

export function unixInspector(
  os: UnixOs,
  instanceId: string,
  options: { graceMs?: number; marks?: MarkScan } = {},
): ProcessInspector {
  const marks = options.marks ?? new MarkScan(os, markFor(instanceId, '').variable);
  const context = { instanceId, marked: () => marks.all() };
  return {
    identify: (pid) => ({ processStart: os.startTime(pid), bootId: os.bootId() }),
    probe: (identity) => probeUnix(identity, os, context),
    reap: (identity) => {
      marks.invalidate();
      return reapUnix(identity, os, { instanceId }, options.graceMs);
    },
  };
}

/**
 * Windows. Every call fails closed: a binding that cannot load or a call that fails gives a
 * verdict with the reason (logged once), never an exception out of listing tasks.
 */
export function windowsInspector(
  os: WindowsOs,
  instanceId: string,
  log: (message: string) => void = () => {},
): ProcessInspector {
  let logged = false;
  const unavailable = (error: unknown): string => {
    const reason = `Windows process checks are unavailable (${(error as Error).message})`;
    if (!logged) log(reason);
    logged = true;
    return reason;
  };
  return {
    identify(pid) {
      try {
        const handle = os.open(pid, 'query');
        if (handle === 'missing' || handle === 'denied') return { processStart: null, bootId: null };
        try {
          return { processStart: os.creationTime(handle), bootId: null };
        } finally {
          os.close(handle);
        }
      } catch (error) {
        unavailable(error);
        // Without identity the record fails closed later: never listed as a leftover, never killed.
        return { processStart: null, bootId: null };
      }
    },
    probe(identity) {
      try {
        return probeWindows(identity, os, instanceId);
      } catch (error) {
        return { alive: false, reason: unavailable(error), undetermined: true };
      }
    },
    async reap(identity) {
      try {
        return reapWindows(identity, os, instanceId);
      } catch (error) {
        return { ended: [], refused: unavailable(error) };
      }
    },
  };
}
