import { createWriteStream, mkdirSync, statSync, type WriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
// A log is the person's alone: output often holds secrets.
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../store/private-files.js';

/**
 * The on-disk record of a task's output: every raw byte, in order. Writes report
 * backpressure so the producer can be paused instead of buffering without bound.
 */
/**
 * Small terminal reads (a pty hands over about 4 KiB at a time, one per turn of the event loop)
 * are gathered into one write of up to this size, or of what came within LOG_FLUSH_MS: the stream
 * is corked and then uncorked, so the gathered chunks go to disk in one writev, never copied into
 * a bigger buffer first. A write per read would cost more than the read (measured: a terminal task
 * ingested at 0.65x a bare node-pty, at 0.8x or better with this).
 */
export const LOG_WRITE_BATCH_BYTES = 256 * 1024;
/** The longest output waits in memory before it is written: a reader of the log sees it this late at most. */
export const LOG_FLUSH_MS = 10;
/**
 * How far the disk may fall behind before the producer is paused. Small values stall a fast
 * task on every write round-trip; this keeps memory bounded per task while letting it stream.
 */
export const LOG_HIGH_WATER_BYTES = 4 * 1024 * 1024;
/**
 * A paused producer is resumed once the disk is this close to caught up, not only when it is
 * wholly caught up: the task refills the pipe while the last writes finish, so output keeps
 * flowing instead of stopping and starting at every 4 MiB.
 */
export const LOG_LOW_WATER_BYTES = 1024 * 1024;

/** What a log missed while its disk was full: where the gap begins, and how many bytes it holds. */
export interface LogGap {
  atByte: number;
  missedBytes: number;
}

export interface TaskLogHooks {
  /** A write failed for lack of room (true: the disk watch counts the disk as full, and the log waits for room). */
  noRoom?: (error: Error) => boolean;
}

export class TaskLog {
  readonly path: string;
  readonly #hooks: TaskLogHooks;
  #stream: WriteStream;
  #failed: Error | null = null;
  /** Set while the disk is full: the task keeps running, its output is counted but not kept. */
  #waiting: { atByte: number } | null = null;
  /** Bytes written into the corked stream since it was corked; 0 when it is not corked. */
  #pendingBytes = 0;
  #corked: WriteStream | null = null;
  /** Every byte the task gave the log, kept or not: the file should hold exactly this many. */
  #accepted = 0;
  #missed = 0;
  #flushTimer: NodeJS.Timeout | null = null;
  #behind = false;
  /** Waiting for the disk to catch up (onDrain). */
  #waiters: (() => void)[] = [];

  constructor(path: string, hooks: TaskLogHooks = {}) {
    this.path = path;
    this.#hooks = hooks;
    makeLogFolder(dirname(path));
    this.#stream = this.#open();
  }

  #open(): WriteStream {
    const stream = createWriteStream(this.path, {
      flags: 'a',
      mode: PRIVATE_FILE_MODE,
      highWaterMark: LOG_HIGH_WATER_BYTES,
    });
    stream.on('error', (error) => {
      if (stream !== this.#stream) return;
      if (this.#hooks.noRoom?.(error)) {
        // The bytes in flight are lost with the stream; how many is known when room returns.
        this.#waiting ??= { atByte: this.#savedBytes() };
        this.#caughtUp();
      } else this.#failed = error;
    });
    return stream;
  }

  /** The bytes on disk now (what was written before the disk filled). */
  #savedBytes(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return 0;
    }
  }

  /** False when the caller should pause until `onDrain`. */
  write(chunk: Buffer): boolean {
    this.#accepted += chunk.length;
    if (this.#failed || this.#waiting) return true;
    const stream = this.#stream;
    if (this.#corked !== stream) {
      this.#flush();
      stream.cork();
      this.#corked = stream;
    }
    this.#flushTimer ??= setTimeout(() => this.#flush(), LOG_FLUSH_MS);
    if (!stream.write(chunk, this.#written) && !this.#behind) {
      this.#behind = true;
      stream.once('drain', this.#caughtUp);
    }
    this.#pendingBytes += chunk.length;
    if (this.#pendingBytes >= LOG_WRITE_BATCH_BYTES) this.#flush();
    return !this.#behind;
  }

  /** Sends what was gathered since the cork to disk (one writev). */
  #flush(): void {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    this.#pendingBytes = 0;
    const corked = this.#corked;
    this.#corked = null;
    if (corked && !corked.destroyed) corked.uncork();
  }

  /** Calls `listener` once the disk has (nearly) caught up; at once, on the next turn, when it is not behind. */
  onDrain(listener: () => void): void {
    if (this.#behind) this.#waiters.push(listener);
    else setImmediate(listener);
  }

  readonly #written = (): void => {
    if (this.#behind && this.#stream.writableLength <= LOG_LOW_WATER_BYTES) this.#caughtUp();
  };

  readonly #caughtUp = (): void => {
    this.#behind = false;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  };

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
    if (!waiting || this.#failed) return null;
    const saved = this.#savedBytes();
    const gap = { atByte: waiting.atByte, missedBytes: Math.max(0, this.#accepted - saved - this.#missed) };
    this.#missed += gap.missedBytes;
    this.#waiting = null;
    const old = this.#stream;
    this.#stream = this.#open();
    old.destroy();
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

  close(): Promise<void> {
    this.#flush();
    const stream = this.#stream;
    return new Promise((resolve) => {
      if (stream.closed || stream.destroyed) return resolve();
      stream.end(() => resolve());
      stream.once('error', () => resolve());
    });
  }
}

export interface LogTail {
  bytes: Buffer;
  totalBytes: number;
  truncated: boolean;
}

/** The last `maxBytes` of a log, without reading the rest; a missing log reads as empty. */
export async function readLogTail(path: string, maxBytes: number): Promise<LogTail> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return { bytes: Buffer.alloc(0), totalBytes: 0, truncated: false };
  }
  const length = Math.min(size, maxBytes);
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, size - length);
    return { bytes: bytes.subarray(0, bytesRead), totalBytes: size, truncated: size > length };
  } finally {
    await handle.close();
  }
}

/** A slice of a log from `fromByte` (at most `maxBytes`), or its last `maxBytes` when no offset is given. */
export async function readLogRange(
  path: string,
  fromByte: number | undefined,
  maxBytes: number,
): Promise<{ bytes: Buffer; fromByte: number; toByte: number; truncated: boolean }> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return { bytes: Buffer.alloc(0), fromByte: 0, toByte: 0, truncated: false };
  }
  let start = fromByte === undefined ? Math.max(0, size - maxBytes) : Math.min(fromByte, size);
  // A reader far behind skips ahead rather than pulling megabytes.
  if (size - start > maxBytes) start = size - maxBytes;
  const length = size - start;
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, start);
    return {
      bytes: bytes.subarray(0, bytesRead),
      fromByte: start,
      toByte: start + bytesRead,
      truncated: start > (fromByte ?? 0),
    };
  } finally {
    await handle.close();
  }
}

/** Read in pieces this size, so counting a multi-gigabyte log never holds more than one in memory. */
const NEWLINE_COUNT_CHUNK_BYTES = 1024 * 1024;

/**
 * Newlines counted so far per log. Logs only grow, so a model polling a busy task's output has
 * only the bytes written since its last read counted. The bytes just before the counted point
 * are kept and compared, so a log that was removed and written again is counted afresh. A few
 * dozen logs are remembered, the oldest dropped first.
 */
const counted = new Map<string, { endByte: number; count: number; last: Buffer }>();
const COUNTED_LOGS_MAX = 64;
const COUNTED_CHECK_BYTES = 64;

/** How many `\n` bytes the log holds before `endByte` (lines it holds before that point); a missing log has none. */
export async function countLogNewlines(path: string, endByte: number): Promise<number> {
  if (endByte <= 0) return 0;
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return 0;
  }
  const bytesBefore = async (end: number): Promise<Buffer> => {
    const from = Math.max(0, end - COUNTED_CHECK_BYTES);
    const buffer = Buffer.alloc(end - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return buffer.subarray(0, bytesRead);
  };
  try {
    const known = counted.get(path);
    const resume =
      known && known.endByte <= endByte && (await bytesBefore(known.endByte)).equals(known.last)
        ? known
        : { endByte: 0, count: 0 };
    const chunk = Buffer.alloc(Math.max(1, Math.min(NEWLINE_COUNT_CHUNK_BYTES, endByte - resume.endByte)));
    let count = resume.count;
    let position = resume.endByte;
    while (position < endByte) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, endByte - position), position);
      if (bytesRead === 0) break;
      const read = chunk.subarray(0, bytesRead);
      for (let at = read.indexOf(0x0a); at !== -1; at = read.indexOf(0x0a, at + 1)) count++;
      position += bytesRead;
    }
    counted.delete(path);
    counted.set(path, { endByte: position, count, last: await bytesBefore(position) });
    if (counted.size > COUNTED_LOGS_MAX) counted.delete(counted.keys().next().value!);
    return count;
  } finally {
    await handle.close();
  }
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
