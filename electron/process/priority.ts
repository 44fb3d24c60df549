import { readFileSync, writeFileSync } from 'node:fs';
import { constants as osConstants, getPriority, setPriority } from 'node:os';

/**
 * The priority of a task at lower priority, as background work gets it: the lowest nice value
 * (19) on Linux and macOS, so a busy task takes only what Drover and other programs leave
 * (measured, issue #18: with 50 chatty tasks at 0 the host's answers waited up to 80 ms for a
 * processor, at 10 up to 55 ms, at 19 about 20 ms). On Windows the "below normal" class: there a
 * lower class is served only while no higher one is ready, and "idle" would starve a build
 * behind any busy program. Processes the task starts inherit it.
 */
export const LOWER_NICE =
  process.platform === 'win32' ? osConstants.priority.PRIORITY_BELOW_NORMAL : osConstants.priority.PRIORITY_LOW;

/**
 * Lowers a task's process to `nice` (LOWER_NICE) where it runs at a higher priority; never raises
 * one (a task started under an already nicer Drover keeps its value). Returns why it could not, in
 * words; null when done or when the process has already gone.
 *
 * On Linux the scheduler may also weigh whole sessions against each other (autogroup: each
 * session one group, every group an equal share whatever its processes' nice values). A task's
 * shell leads a session of its own, so its group's nice value is lowered too; that group is
 * shared by everything the task starts, those already running included. It is changed only for
 * a process that leads its own session: never a group this process, or another program, is in.
 */
export function lowerPriority(pid: number, nice = LOWER_NICE): string | null {
  try {
    if (getPriority(pid) < nice) setPriority(pid, nice);
  } catch (error) {
    if (isGone(error)) return null;
    return `could not lower the priority of process ${pid}: ${(error as Error).message}`;
  }
  return process.platform === 'linux' ? lowerSessionGroup(pid, nice) : null;
}

/** The Linux autogroup of a session leader: `/proc/<pid>/autogroup` reads "/autogroup-25 nice 0". */
function lowerSessionGroup(pid: number, target: number): string | null {
  const file = `/proc/${pid}/autogroup`;
  let current: string;
  try {
    if (sessionOf(pid) !== pid) return null;
    current = readFileSync(file, 'utf8');
  } catch {
    // Gone, or a kernel without autogroups (no such file): nothing to lower.
    return null;
  }
  const nice = /nice (-?\d+)/.exec(current);
  if (!nice || Number(nice[1]) >= target) return null;
  try {
    writeFileSync(file, String(target));
  } catch (error) {
    if (isGone(error)) return null;
    return `could not lower the scheduling group of process ${pid}: ${(error as Error).message}`;
  }
  return null;
}

/** The session id of a process, from /proc/<pid>/stat (after the name in parentheses, field 6). */
export function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[3]);
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // ESRCH: no such process; ENOENT: its /proc entry went with it.
  return code === 'ESRCH' || code === 'ENOENT' || (error as { info?: { code?: string } }).info?.code === 'ESRCH';
}
