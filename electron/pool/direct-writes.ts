// When a task's log may be written on the event loop instead of the thread pool (TaskLog).
import { readFileSync, statfsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Two direct writes in a row slower than this mean the disk may not be taking writes into memory
 * at once (writeback throttling, a stalling device): every log queues its writes on the thread
 * pool for a while, so the event loop waits on the disk at most twice each time. One slow write
 * alone is not enough: on a busy machine the thread is sometimes preempted in the middle of a
 * write that the disk took at once, and the next write is quick again.
 *
 * The write after a slow one is timed closer: where the OS says how long the thread waited for a
 * CPU meanwhile (Linux's schedstat), that wait is not the disk's doing and is taken off. A write
 * slow only for want of a CPU neither pauses nor clears the suspicion; the next one is timed the
 * same way.
 *
 * The pause starts short and doubles each time the writes are slow again soon after one ends, up
 * to LOG_DIRECT_PAUSE_MAX_MS: a disk that keeps stalling is soon tried only twice a minute, and a
 * loaded machine that happened to preempt two writes in a row loses direct writes for 2 s, not
 * 30 (with 50 chatty tasks, 30 s of queued writes cost the host a third more CPU and its event
 * loop thousands of preemptions a second).
 */
export const LOG_SLOW_DIRECT_WRITE_MS = 5;
export const LOG_DIRECT_PAUSE_FIRST_MS = 2_000;
export const LOG_DIRECT_PAUSE_MAX_MS = 30_000;

/**
 * Linux filesystems (statfs f_type) that hold a write in the page cache and return: on these a
 * log is written directly, on the event loop, which on a machine with few cores is twice as fast
 * as handing each write to the thread pool (bench/pool.bench.ts: the thread pool's writes compete
 * with the task and Drover for the same cores). Anything not known here (network and FUSE
 * filesystems, whose writes can wait on a server; other OSes) queues its writes.
 */
const PAGE_CACHE_FILESYSTEMS: ReadonlySet<number> = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
  0x794c7630, // overlayfs
]);

/** How a log's writes are made: `direct` on the event loop, `queued` on the thread pool; `auto` picks by filesystem. */
export type LogWrites = 'direct' | 'queued' | 'auto';

/**
 * Whether direct writes are allowed now: two in a row slower than LOG_SLOW_DIRECT_WRITE_MS pause
 * them, for every log that shares this guard (all of a Drover's, by default), for
 * LOG_DIRECT_PAUSE_FIRST_MS, or twice the last pause when that one ended less than
 * LOG_DIRECT_PAUSE_MAX_MS ago (never longer than LOG_DIRECT_PAUSE_MAX_MS).
 */
export class DirectWriteGuard {
  readonly #now: () => number;
  readonly #cpuWait: () => number | null;
  #pausedUntil = -Infinity;
  #pauseMs = 0;
  /** The last direct write was slow: one more pauses them. */
  #suspect = false;

  /**
   * `now`: a clock in ms. `cpuWait`: how long, in ms, the calling thread has waited for a CPU so
   * far (it only has to grow by the wait), or null where the OS does not say.
   */
  constructor(now: () => number = () => performance.now(), cpuWait: () => number | null = threadCpuWaitMs) {
    this.#now = now;
    this.#cpuWait = cpuWait;
  }

  get allowed(): boolean {
    return this.#now() >= this.#pausedUntil;
  }

  /** Makes one direct write, timed. */
  time(write: () => void): void {
    const began = this.#now();
    // Read only while a slow write is suspected (a file read; most writes take microseconds), and
    // inside the timed span, so that no wait from outside it is taken off.
    const waitedBefore = this.#suspect ? this.#cpuWait() : null;
    try {
      write();
    } finally {
      const waitedAfter = waitedBefore === null ? null : this.#cpuWait();
      const ended = this.#now();
      const took = ended - began;
      const waited = waitedBefore === null || waitedAfter === null ? 0 : Math.max(0, waitedAfter - waitedBefore);
      const slow = took - waited > LOG_SLOW_DIRECT_WRITE_MS;
      if (slow && this.#suspect) {
        const again = ended - this.#pausedUntil < LOG_DIRECT_PAUSE_MAX_MS;
        this.#pauseMs = again ? Math.min(this.#pauseMs * 2, LOG_DIRECT_PAUSE_MAX_MS) : LOG_DIRECT_PAUSE_FIRST_MS;
        this.#pausedUntil = ended + this.#pauseMs;
        this.#suspect = false;
      } else if (slow || took <= LOG_SLOW_DIRECT_WRITE_MS) this.#suspect = slow;
      // Else it was slow only for want of a CPU: it says nothing of the disk either way.
    }
  }
}

const SCHEDSTAT = '/proc/thread-self/schedstat';
/** Cleared once the file cannot be read: it will not appear later. */
let schedstatReadable = process.platform === 'linux';

/**
 * The calling thread's time spent runnable but waiting for a CPU since it started, in ms: the
 * second figure of Linux's /proc/thread-self/schedstat (ns; the first is the time it ran). Null on
 * other systems, or where the kernel keeps no such figure. `file`: another schedstat, for tests.
 */
export function threadCpuWaitMs(file = SCHEDSTAT): number | null {
  if (!schedstatReadable && file === SCHEDSTAT) return null;
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch (error) {
    // Gone or forbidden for good; anything else (no file handle free just now) may pass.
    const code = (error as NodeJS.ErrnoException).code;
    if (file === SCHEDSTAT && (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM'))
      schedstatReadable = false;
    return null;
  }
  const waitedNs = Number(text.split(' ')[1]);
  return Number.isFinite(waitedNs) ? waitedNs / 1e6 : null;
}

/** The guard every log shares unless given its own (tests). */
export const sharedDirectWriteGuard = new DirectWriteGuard();

/** Whether logs in `folder` may be written directly (a filesystem known to write into memory). */
export function pageCacheFolder(folder: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return PAGE_CACHE_FILESYSTEMS.has(statfsSync(folder).type);
  } catch {
    return false;
  }
}
