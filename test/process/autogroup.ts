import { existsSync, readFileSync } from 'node:fs';

/** Linux's per-session scheduling groups (autogroup), where this kernel has them. */
export const hasAutogroup = existsSync('/proc/self/autogroup');

/** The nice value of a process's session group, as `/proc/<pid>/autogroup` says it ("/autogroup-25 nice 0"). */
export const groupNice = (pid: number | 'self') =>
  Number(/nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))![1]);
