import type { ProcessIdentity, ReapResult, Verdict } from './identity.js';
import { endEscapees, probeUnix, probeWindows, reapUnix, reapWindows } from './leftovers.js';
import { currentUnixOs, type UnixOs } from './unix-os.js';
import { win32Os, type WindowsOs } from './windows-os.js';

/** What the pool asks of the OS about processes: identity at launch, and leftovers later. */
export interface ProcessInspector {
  /** The OS identity of a process just started, recorded so a later run can prove it. */
  identify(pid: number): { processStart: string | null; bootId: string | null };
  probe(identity: ProcessIdentity): Verdict;
  reap(identity: ProcessIdentity): Promise<ReapResult>;
  /** Processes that left a stopped task's group but carry its mark (Linux); ended, and listed. */
  endEscapees(taskId: string): Promise<number[]>;
}

export function unixInspector(os: UnixOs, graceMs?: number): ProcessInspector {
  return {
    identify: (pid) => ({ processStart: os.startTime(pid), bootId: os.bootId() }),
    probe: (identity) => probeUnix(identity, os),
    reap: (identity) => reapUnix(identity, os, graceMs),
    endEscapees: (taskId) => endEscapees(taskId, os, graceMs),
  };
}

export function windowsInspector(os: WindowsOs): ProcessInspector {
  return {
    identify(pid) {
      try {
        const handle = os.open(pid);
        if (!handle) return { processStart: null, bootId: null };
        try {
          return { processStart: os.creationTime(handle), bootId: null };
        } finally {
          os.close(handle);
        }
      } catch {
        // Without identity the record fails closed later: never listed as a leftover, never killed.
        return { processStart: null, bootId: null };
      }
    },
    probe: (identity) => probeWindows(identity, os),
    reap: (identity) => reapWindows(identity, os),
    endEscapees: async () => [],
  };
}

export function currentInspector(): ProcessInspector {
  return process.platform === 'win32' ? windowsInspector(win32Os()) : unixInspector(currentUnixOs());
}
