/** What a task record holds to prove, later, that a process is still the one it started. */
export interface ProcessIdentity {
  taskId: string;
  /** The process group leader's pid (on Windows, the shell's pid). */
  pid: number | null;
  pgid: number | null;
  /** Linux: start ticks from /proc/<pid>/stat; macOS: ps lstart; Windows: creation FILETIME. Null on records written before identity existed. */
  processStart: string | null;
  /** Linux: /proc/sys/kernel/random/boot_id; macOS: kern.boottime. */
  bootId: string | null;
}

export type Verdict = { alive: true } | { alive: false; reason: string };

export interface ReapResult {
  /** Processes signalled (group members and escapees found by the task's mark). */
  ended: number[];
  /** Why nothing was done, when nothing was. */
  refused: string | null;
}

/** The environment variable that marks every process a task starts with the task's id. */
export const TASK_MARK_VARIABLE = 'DROVER_TASK_ID';
