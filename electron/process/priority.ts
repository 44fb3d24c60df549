import { getPriority, setPriority } from 'node:os';

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
 * On Linux with autogroup the scheduler weighs each session as a group first; a task's session
 * group is given at least this value too, by the task weigher (process/task-weight.ts).
 */
export function lowerPriority(pid: number, nice: number): string | null {
  try {
    if (getPriority(pid) < nice) setPriority(pid, nice);
  } catch (error) {
    if (isGone(error)) return null;
    return `could not lower the priority of process ${pid}: ${(error as Error).message}`;
  }
  return null;
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // ESRCH: no such process; ENOENT: its /proc entry went with it.
  return code === 'ESRCH' || code === 'ENOENT' || (error as { info?: { code?: string } }).info?.code === 'ESRCH';
}
