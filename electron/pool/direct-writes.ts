// When a task's log may be written on the event loop instead of the thread pool (TaskLog).
import { statfsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Two direct writes in a row slower than this mean the disk may not be taking writes into memory
 * at once (writeback throttling, a stalling device): every log queues its writes on the thread
 * pool for a while, so the event loop waits on the disk at most twice each time. One slow write
 * alone is not enough: on a busy machine the thread is sometimes preempted in the middle of a
 * write that the disk took at once, and the next write is quick again.
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
  #pausedUntil = -Infinity;
  #pauseMs = 0;
  /** The last direct write was slow: one more pauses them. */
  #suspect = false;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  get allowed(): boolean {
    return this.#now() >= this.#pausedUntil;
  }

  /** Makes one direct write, timed. */
  time(write: () => void): void {
    const began = this.#now();
    try {
      write();
    } finally {
      const ended = this.#now();
      const slow = ended - began > LOG_SLOW_DIRECT_WRITE_MS;
      if (slow && this.#suspect) {
        const again = ended - this.#pausedUntil < LOG_DIRECT_PAUSE_MAX_MS;
        this.#pauseMs = again ? Math.min(this.#pauseMs * 2, LOG_DIRECT_PAUSE_MAX_MS) : LOG_DIRECT_PAUSE_FIRST_MS;
        this.#pausedUntil = ended + this.#pauseMs;
        this.#suspect = false;
      } else this.#suspect = slow;
    }
  }
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
