import { closeSync, mkdirSync, openSync, statSync, writeSync, writev } from 'node:fs';
import { dirname } from 'node:path';
// A log is the person's alone: output often holds secrets.
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../store/private-files.js';
import { pageCacheFolder, sharedDirectWriteGuard, type DirectWriteGuard, type LogWrites } from './direct-writes.js';

/**
 * Small reads (a pty hands over about 4 KiB at a time, one per turn of the event loop) are
 * gathered into one write of up to this size, or of what came within LOG_FLUSH_MS. A write per
 * read would cost more than the read (measured: a terminal task ingested at 0.65x a bare
 * node-pty, at 0.8x or better with this).
 */
export const LOG_WRITE_BATCH_BYTES = 256 * 1024;
/** The batch's first size: it doubles while a task streams, and a quiet task keeps no more than this. */
export const LOG_FIRST_BATCH_BYTES = 16 * 1024;
/** A chunk this big or bigger is written as it comes (after what was gathered before it), never copied into a batch. */
export const LOG_WHOLE_CHUNK_BYTES = 64 * 1024;
/** The longest output waits in memory before it is written: a reader of the log sees it this late at most. */
export const LOG_FLUSH_MS = 10;
/**
 * How far queued writes may fall behind before the producer is paused. Small values stall a
 * fast task on every write round-trip; this keeps memory bounded per task while letting it stream.
 */
export const LOG_HIGH_WATER_BYTES = 4 * 1024 * 1024;
/**
 * A paused producer is resumed once the queue is this close to written, not only when it is
 * empty: the task refills the pipe while the last writes finish, so output keeps flowing
 * instead of stopping and starting at every 4 MiB.
 */
export const LOG_LOW_WATER_BYTES = 1024 * 1024;
/** What a log missed while its disk was full: where the gap begins, and how many bytes it holds. */
export interface LogGap {
  atByte: number;
  missedBytes: number;
}

export interface TaskLogOptions {
  /** A write failed for lack of room (true: the disk watch counts the disk as full, and the log waits for room). */
  noRoom?: (error: Error) => boolean;
  /** How writes are made (default `auto`). */
  writes?: LogWrites;
  /** Pauses direct writes after a slow one (default: one guard for every log). */
  guard?: DirectWriteGuard;
}

/**
 * The on-disk record of a task's output: every raw byte, in order. The chunks it is given are
 * lent (a runner reads into the same buffer again): what it keeps past `write` it copies. Queued
 * writes report backpressure, so the producer can be paused instead of buffering without bound.
 */
export class TaskLog {
  readonly path: string;
  readonly #options: TaskLogOptions;
  readonly #direct: boolean;
  readonly #guard: DirectWriteGuard;
  #fd = -1;
  #failed: Error | null = null;
  /** Set while the disk is full: the task keeps running, its output is counted but not kept. */
  #waiting: { atByte: number } | null = null;
  /**
   * Small chunks are copied into this buffer and written together. A log that keeps filling it
   * keeps it; one whose batch went out on the timer (a quiet task) keeps at most a first-size one.
   */
  #batch: Buffer | null = null;
  #batchUsed = 0;
  #flushTimer: NodeJS.Timeout | null = null;
  /** Queued writes: the buffers not yet handed to the thread pool, and all bytes not yet written. */
  #queue: Buffer[] = [];
  #queuedBytes = 0;
  #writing = false;
  /** Every byte the task gave the log, kept or not: the file should hold exactly this many. */
  #accepted = 0;
  #missed = 0;
  #behind = false;
  #closed = false;
  /** Waiting for the queue to (nearly) empty (onDrain). */
  #waiters: (() => void)[] = [];
  /** Waiting for every write to be over (close). */
  #idle: (() => void)[] = [];

  constructor(path: string, options: TaskLogOptions = {}) {
    this.path = path;
    this.#options = options;
    const folder = dirname(path);
    makeLogFolder(folder);
    const writes = options.writes ?? 'auto';
    this.#direct = writes === 'direct' || (writes === 'auto' && pageCacheFolder(folder));
    this.#guard = options.guard ?? sharedDirectWriteGuard;
    this.#open();
  }

  /** Opens the file for appending; a failure is the disk's state (full: the log waits for room) or the log's error. */
  #open(): void {
    try {
      this.#fd = openSync(this.path, 'a', PRIVATE_FILE_MODE);
    } catch (error) {
      this.#fd = -1;
      this.#writeFailed(error as Error);
    }
  }

  /** The bytes on disk now (what was written before the disk filled). */
  #savedBytes(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return 0;
    }
  }

  /** False when the caller should pause until `onDrain`. `chunk` is lent: it is copied if kept. */
  write(chunk: Buffer): boolean {
    if (this.#closed) return true;
    this.#accepted += chunk.length;
    if (this.#failed || this.#waiting || chunk.length === 0) return true;
    if (chunk.length >= LOG_WHOLE_CHUNK_BYTES) {
      this.#flush(true);
      this.#out(chunk);
      return !this.#behind;
    }
    this.#room(chunk.length);
    this.#batchUsed += chunk.copy(this.#batch!, this.#batchUsed);
    if (this.#batchUsed === LOG_WRITE_BATCH_BYTES) this.#flush(true);
    else this.#flushTimer ??= setTimeout(() => this.#flush(false), LOG_FLUSH_MS);
    return !this.#behind;
  }

  /**
   * Makes room in the batch for `bytes` more: it starts small and doubles up to a full batch, so a
   * quiet task holds little; a full one is written first.
   */
  #room(bytes: number): void {
    const needed = this.#batchUsed + bytes;
    if (this.#batch && needed <= this.#batch.length) return;
    if (needed > LOG_WRITE_BATCH_BYTES) {
      this.#flush(true);
      if (this.#batch && bytes <= this.#batch.length) return;
    }
    let size = Math.max(LOG_FIRST_BATCH_BYTES, this.#batch?.length ?? 0);
    while (size < this.#batchUsed + bytes) size *= 2;
    const grown = Buffer.allocUnsafeSlow(Math.min(LOG_WRITE_BATCH_BYTES, size));
    if (this.#batch) this.#batch.copy(grown, 0, 0, this.#batchUsed);
    this.#batch = grown;
  }

  /** Writes what was gathered; `keep`: the batch buffer stays for the next chunks (the task is streaming). */
  #flush(keep: boolean): void {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    if (this.#batch && this.#batchUsed > 0) {
      // Lent to #out like any chunk: the batch is filled again next.
      this.#out(this.#batch.subarray(0, this.#batchUsed));
      this.#batchUsed = 0;
    }
    if (!keep && (this.#batch?.length ?? 0) > LOG_FIRST_BATCH_BYTES) this.#batch = null;
  }

  /** Writes `buffer` now where that is allowed, else queues a copy of it. */
  #out(buffer: Buffer): void {
    if (this.#failed || this.#waiting || this.#fd < 0) return;
    // Where direct writes are allowed every write is one, a chatty task's small batch on the timer
    // included: handed to the thread pool, fifty chatty tasks' batches (5,000 a second) each woke a
    // pool thread, which took the core from the event loop (3,500 preemptions a second), and the
    // host used a quarter more CPU (bench/lag.bench.ts). Direct only behind nothing queued, so the
    // bytes reach the file in the order they came.
    if (this.#direct && !this.#writing && this.#queue.length === 0 && this.#guard.allowed) {
      this.#writeNow(buffer);
      return;
    }
    this.#queue.push(Buffer.from(buffer));
    this.#queuedBytes += buffer.length;
    if (this.#queuedBytes >= LOG_HIGH_WATER_BYTES) this.#behind = true;
    this.#pump();
  }

  #writeNow(buffer: Buffer): void {
    try {
      this.#guard.time(() => {
        for (let at = 0; at < buffer.length;) {
          const written = writeSync(this.#fd, buffer, at, buffer.length - at);
          if (written === 0) throw noProgress();
          at += written;
        }
      });
    } catch (error) {
      this.#writeFailed(error as Error);
    }
  }

  /** Hands the queue to the thread pool, one writev at a time. */
  #pump(): void {
    if (this.#writing) return;
    if (this.#queue.length === 0 || this.#fd < 0 || this.#failed || this.#waiting) {
      this.#settleIdle();
      return;
    }
    const batch = this.#queue;
    this.#queue = [];
    const total = batch.reduce((sum, buffer) => sum + buffer.length, 0);
    this.#writing = true;
    writev(this.#fd, batch, (error, written) => {
      this.#writing = false;
      if (error || written === 0) {
        this.#queuedBytes -= total;
        this.#writeFailed(error ?? noProgress());
      } else {
        // A short write (the disk filling up, say): the rest goes first next time, where it fails for good or lands.
        if (written < total) this.#queue.unshift(...unwritten(batch, written));
        this.#queuedBytes -= written;
        if (this.#behind && this.#queuedBytes <= LOG_LOW_WATER_BYTES) this.#caughtUp();
      }
      this.#pump();
    });
  }

  /** A write or the open failed: a full disk makes the log wait for room, anything else ends its writing. */
  #writeFailed(error: Error): void {
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#batchUsed = 0;
    if (this.#options.noRoom?.(error)) {
      // What was in flight is lost; how much the log misses is known when room returns.
      this.#waiting ??= { atByte: this.#savedBytes() };
    } else this.#failed ??= error;
    this.#caughtUp();
  }

  /** Calls `listener` once queued writes have (nearly) caught up; at once, on the next turn, when they are not behind. */
  onDrain(listener: () => void): void {
    if (this.#behind) this.#waiters.push(listener);
    else setImmediate(listener);
  }

  readonly #caughtUp = (): void => {
    this.#behind = false;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  };

  #settleIdle(): void {
    const idle = this.#idle;
    this.#idle = [];
    for (const done of idle) done();
  }

  /** A failure other than a full disk: the log stays as it is. */
  get error(): Error | null {
    return this.#failed;
  }

  /** Where the log stopped while the disk is full; null while it is being written. */
  get waitingSince(): number | null {
    return this.#waiting?.atByte ?? null;
  }

  /** Bytes the task printed that the log does not hold (written while the disk was full). */
  get missedBytes(): number {
    return this.#missed + (this.#waiting ? this.#accepted - this.#waiting.atByte - this.#missed : 0);
  }

  /**
   * Room is back: the log is written again from here on, and the gap is what it missed (the file
   * holds fewer bytes than the task printed by exactly this many). Null when it was not waiting.
   */
  resume(): LogGap | null {
    const waiting = this.#waiting;
    if (!waiting || this.#failed || this.#closed) return null;
    const saved = this.#savedBytes();
    const gap = { atByte: waiting.atByte, missedBytes: Math.max(0, this.#accepted - saved - this.#missed) };
    this.#missed += gap.missedBytes;
    this.#waiting = null;
    if (this.#fd < 0) this.#open();
    return gap;
  }

  /**
   * After close: whether the file was removed or cut short under the task (by someone else: the
   * log is only ever appended to), judged by the bytes it should hold. Null when it is whole.
   */
  damage(): 'removed' | 'shortened' | null {
    if (this.#failed || this.#waiting) return null;
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return this.#accepted > 0 ? 'removed' : null;
    }
    return size < this.#accepted - this.#missed ? 'shortened' : null;
  }

  /** Writes what is gathered and queued, then lets go of the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#flush(false);
    this.#closed = true;
    if (this.#writing || (this.#queue.length > 0 && !this.#failed && !this.#waiting)) {
      await new Promise<void>((resolve) => {
        this.#idle.push(resolve);
        this.#pump();
      });
    }
    if (this.#fd >= 0) {
      try {
        closeSync(this.#fd);
      } catch {
        /* already gone */
      }
      this.#fd = -1;
    }
  }
}

/** A write that took no bytes and gave no reason: the log stops there rather than retry forever. */
function noProgress(): Error {
  return Object.assign(new Error('the disk took none of the bytes written to the log'), { code: 'EIO' });
}

/** What is left of `buffers` once their first `written` bytes are on disk. */
function unwritten(buffers: Buffer[], written: number): Buffer[] {
  const rest: Buffer[] = [];
  let skip = written;
  for (const buffer of buffers) {
    if (skip >= buffer.length) skip -= buffer.length;
    else {
      rest.push(skip > 0 ? buffer.subarray(skip) : buffer);
      skip = 0;
    }
  }
  return rest;
}

/**
 * A task's folder is new and its parent (the session's background folder) is there but for the
 * first task: one mkdir, not the walk up from the root a recursive one does (a start waits on it).
 */
function makeLogFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: PRIVATE_DIR_MODE });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  }
}
