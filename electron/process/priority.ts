import { readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { linuxStat } from './unix-os.js';

/**
 * The nice value tasks run at unless `background.taskNice` says otherwise: 0, Drover's own. A lower
 * priority is a trade, so it is the person's to make: under 50 chatty tasks on two cores the host's
 * answers waited up to 80 ms for a processor with tasks at 0, about 50 at 10 and 20 at 19 (issue
 * #18), while a task competing with two busy programs of normal priority took 7 times as long at
 * 10 as at 0, and 28 times at 19. On Windows Node maps 10 to 18 to "below normal" and 19 to
 * "idle" (served only while nothing else is ready); 1 to 9 change nothing there.
 */
export const DEFAULT_TASK_NICE = 0;

/**
 * Lowers a task's process to `nice` where it runs at a higher priority; never raises one (a task
 * started under an already nicer Drover keeps its value). Returns why it could not, in words;
 * null when done or when the process has already gone.
 *
 * On Linux the scheduler may also weigh whole sessions against each other (autogroup: each
 * session one group, every group an equal share whatever its processes' nice values). A task's
 * shell leads a session of its own, so its group's nice value is lowered too; that group is
 * shared by everything the task starts, those already running included. It is changed only for
 * a process that leads its own session: never a group this process, or another program, is in.
 */
export function lowerPriority(pid: number, nice: number): string | null {
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
    if (Number(linuxStat(pid)?.[3]) !== pid) return null;
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

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // ESRCH: no such process; ENOENT: its /proc entry went with it.
  return code === 'ESRCH' || code === 'ENOENT' || (error as { info?: { code?: string } }).info?.code === 'ESRCH';
}
