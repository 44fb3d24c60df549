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
