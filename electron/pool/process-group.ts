import { readFileSync } from 'node:fs';

/**
 * Signals and probes for a task's process group. The group id is the leader's pid (each
 * task runs as the leader of its own session), and only ids the pool recorded for its own
 * tasks ever reach these functions.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`refusing to signal process group ${pgid}`);
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPERM') return true; // alive, just not ours to signal
    return false;
  }
}

/** Whether any process is still in the group. */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/**
 * The leader's start time as the OS records it, to tell a reused pid from ours later.
 * Linux: field 22 of /proc/<pid>/stat (clock ticks since boot). Elsewhere: null for now.
 */
export function processStartTime(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

export function bootId(): string | null {
  if (process.platform !== 'linux') return null;
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}
