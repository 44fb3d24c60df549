import { markFor, type ProcessIdentity, type ReapResult, type Verdict } from './identity.js';
import { probeUnix, reapUnix } from './leftovers-unix.js';
import { probeWindows, reapWindows } from './leftovers-windows.js';
import { currentUnixOs, type UnixOs } from './unix-os.js';
import { win32Os, type WindowsOs } from './windows-os.js';

/** How long one scan of marked processes is shared by the probes of a listing. */
const MARK_SCAN_REUSE_MS = 1_000;

/** What the pool asks of the OS about processes: identity at launch, and leftovers later. */
export interface ProcessInspector {
  /** The OS identity of a process just started, recorded so a later run can prove it. */
  identify(pid: number): { processStart: string | null; bootId: string | null };
  probe(identity: ProcessIdentity): Verdict;
  reap(identity: ProcessIdentity): Promise<ReapResult>;
}

export function unixInspector(os: UnixOs, instanceId: string, graceMs?: number): ProcessInspector {
  let scan: { at: number; variable: string; found: Map<string, number[]> } | null = null;
  const variable = markFor(instanceId, '').variable;
  const marked = () => {
    if (!scan || Date.now() - scan.at > MARK_SCAN_REUSE_MS) scan = { at: Date.now(), variable, found: os.markedProcesses(variable) };
    return scan.found;
  };
  const context = { instanceId, marked };
  return {
    identify: (pid) => ({ processStart: os.startTime(pid), bootId: os.bootId() }),
    probe: (identity) => probeUnix(identity, os, context),
    reap: (identity) => {
      scan = null;
      return reapUnix(identity, os, { instanceId }, graceMs);
    },
  };
}

/**
 * Windows. Every call fails closed: a binding that cannot load or a call that fails gives a
 * verdict with the reason (logged once), never an exception out of listing tasks.
 */
export function windowsInspector(os: WindowsOs, instanceId: string, log: (message: string) => void = () => {}): ProcessInspector {
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
        return { alive: false, reason: unavailable(error) };
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

export function currentInspector(instanceId: string, log?: (message: string) => void): ProcessInspector {
  return process.platform === 'win32' ? windowsInspector(win32Os(), instanceId, log) : unixInspector(currentUnixOs(), instanceId);
}
