export { CONTAINMENTS, type Containment } from '../../shared/schemas/task.js';

/**
 * The mark every process of a task carries in its environment: a variable named after the
 * Drover instance, holding the task id. Another Drover (another data folder) uses another name,
 * so a sweep by mark can never reach its processes; a Drover running inside a task keeps the
 * outer task's mark beside its own.
 */
export interface Mark {
  variable: string;
  value: string;
}

/** The prefix of every instance's mark variable: `DROVER_TASK_<instance>=<task id>`. */
export const MARK_PREFIX = 'DROVER_TASK_';

/**
 * The variable records written before instance ids carried (`DROVER_TASK_ID=<task id>`). Every
 * Drover used it, so it proves nothing by itself: it is read only to confirm a group whose leader
 * is proven by its start time, and never used to find processes. New tasks still get it, for
 * scripts that want their task's id.
 */
export const LEGACY_MARK_VARIABLE = 'DROVER_TASK_ID';

export function markFor(instanceId: string, taskId: string): Mark {
  return { variable: `${MARK_PREFIX}${instanceId}`, value: taskId };
}

/** Stored as `VARIABLE=value`. */
export function formatMark(mark: Mark): string {
  return `${mark.variable}=${mark.value}`;
}

export function parseMark(text: string | null): Mark | null {
  if (!text) return null;
  const at = text.indexOf('=');
  if (at <= 0) return null;
  return { variable: text.slice(0, at), value: text.slice(at + 1) };
}

/** The instance a mark belongs to, or null for a legacy or foreign one. */
export function markInstance(mark: Mark | null): string | null {
  return mark && mark.variable.startsWith(MARK_PREFIX) ? mark.variable.slice(MARK_PREFIX.length) : null;
}

/** What a task record holds to prove, later, that a process is still the one it started. */
export interface ProcessIdentity {
  taskId: string;
  /** The process group leader's pid (on Windows, the shell's pid). */
  pid: number | null;
  pgid: number | null;
  /** Linux: start ticks from /proc/<pid>/stat; macOS: the start time from ps in UTC; Windows: creation FILETIME. Null on records written before identity existed. */
  processStart: string | null;
  /** Linux: /proc/sys/kernel/random/boot_id; macOS: kern.bootsessionuuid. */
  bootId: string | null;
  /** The task's mark; null on records written before instance ids. */
  mark: Mark | null;
  /** Linux with cgroup v2: the task's cgroup inside the hierarchy (`/…/drover-<instance>/bg_3`); the cgroup is the identity. */
  cgroup: string | null;
  /** Windows: processes seen in the task's job, with their creation times, so they can be proven after the leader exited. */
  members: WindowsMember[];
}

export interface WindowsMember {
  pid: number;
  /** Creation FILETIME as a decimal string. */
  created: string;
}

/**
 * Whether a record's processes still run. `undetermined` marks a "no" that is not a proof (the OS
 * would not tell, or the record is too old to check): such a record is never settled as lost.
 */
export type Verdict = { alive: true } | { alive: false; reason: string; undetermined?: true };

export interface ReapResult {
  /** Processes signalled (group or cgroup members and escapees found by the task's mark). */
  ended: number[];
  /** Why nothing was done, when nothing was. */
  refused: string | null;
}
