import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DirectWriteGuard,
  LOG_DIRECT_PAUSE_FIRST_MS,
  LOG_DIRECT_PAUSE_MAX_MS,
  LOG_SLOW_DIRECT_WRITE_MS,
  pageCacheFolder,
  threadCpuWaitMs,
} from '../../electron/pool/direct-writes.js';
import {
  LOG_FLUSH_MS,
  LOG_HIGH_WATER_BYTES,
  LOG_WHOLE_CHUNK_BYTES,
  LOG_WRITE_BATCH_BYTES,
  TaskLog,
} from '../../electron/pool/task-log.js';
import { mountSmallDisk } from '../small-disk.js';

/** For guards on a fake clock: the thread's real waits for a CPU must not count against it. */
const noCpuWait = () => null;

let dir: string;
const cleanups: (() => void)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'drover-task-log-'));
  // Only the log's flush timer is faked: the file's writes still run, and setImmediate still turns.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Lets the file's writes run (many turns of the loop) until the file holds `bytes`, or gives up; answers its size. */
async function settle(path: string, bytes: number): Promise<number> {
  for (let turn = 0; turn < 2_000 && sizeOf(path) !== bytes; turn++)
    await new Promise((resolve) => setImmediate(resolve));
  return sizeOf(path);
}

describe('TaskLog write batching', () => {
  it('gathers small chunks while no write is in flight, and writes them once LOG_FLUSH_MS passes', async () => {
    const path = join(dir, 'idle.log');
    const log = new TaskLog(path);
    log.write(Buffer.from('first '));
    log.write(Buffer.from('second'));
    // Held: the flush timer has not fired, and the two are under a batch.
    expect(await settle(path, 12)).toBe(0);
    vi.advanceTimersByTime(LOG_FLUSH_MS);
    expect(await settle(path, 12)).toBe(12);
    await log.close();
  });

  it('writes a full batch at once, with what was gathered before it, without waiting for the timer', async () => {
    const path = join(dir, 'batch.log');
    const log = new TaskLog(path);
    log.write(Buffer.from('gathered '));
    const big = Buffer.alloc(LOG_WRITE_BATCH_BYTES, 0x61);
    log.write(big);
    // No timer is advanced: the batch went out because it was full.
    expect(await settle(path, big.length + 9)).toBe(big.length + 9);
    await log.close();
  });
});

/** Turns the loop (the flush timer is faked, setImmediate is not) until `predicate` holds, for at most 5 s. */
async function turnsUntil(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** `length` bytes counting up from `seed`, so a misplaced or overwritten piece shows. */
const pattern = (length: number, seed: number): Buffer => {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (seed + i) % 251;
  return bytes;
};

describe.each(['direct', 'queued'] as const)('TaskLog, %s writes', (writes) => {
  // A direct log here gets its own guard on a clock that never moves: how a slow write on a busy
  // machine turns direct writes off is tested below, and must not turn these tests into queued ones.
  const how = (): { writes: typeof writes; guard?: DirectWriteGuard } =>
    writes === 'direct' ? { writes, guard: new DirectWriteGuard(() => 0, noCpuWait) } : { writes };
  it('keeps what a lent chunk held when it was written, though its memory is reused at once', async () => {
    const path = join(dir, 'lent.log');
    const log = new TaskLog(path, how());
    // One buffer read into again and again, as the pipe runner's is: small and whole-chunk sizes.
    const reused = Buffer.alloc(LOG_WHOLE_CHUNK_BYTES * 2);
    const expected: Buffer[] = [];
    for (const [index, length] of [100, 5_000, LOG_WHOLE_CHUNK_BYTES * 2, 3, LOG_WHOLE_CHUNK_BYTES, 70].entries()) {
      pattern(length, index).copy(reused);
      expected.push(pattern(length, index));
      log.write(reused.subarray(0, length));
      reused.fill(0xff);
    }
    await log.close();
    expect(readFileSync(path).equals(Buffer.concat(expected))).toBe(true);
    expect(log.damage()).toBeNull();
  });

  it('holds every byte in order under a burst, with backpressure only when writes are queued', async () => {
    const path = join(dir, 'burst.log');
    const log = new TaskLog(path, how());
    const pieces = Array.from({ length: 6 }, (_, index) => pattern(1024 * 1024, index));
    const answers = pieces.map((piece) => log.write(piece));
    if (writes === 'direct') {
      // Written before write() returned: nothing waits in memory, so nothing asks the task to pause.
      expect(answers.every(Boolean)).toBe(true);
      expect(statSync(path).size).toBe(6 * 1024 * 1024);
    } else {
      // Queued past the high-water mark: the producer is told to pause, and told when to go on.
      expect(answers.indexOf(false)).toBe(Math.ceil(LOG_HIGH_WATER_BYTES / (1024 * 1024)) - 1);
      await new Promise<void>((resolve) => log.onDrain(resolve));
    }
    await log.close();
    expect(readFileSync(path).equals(Buffer.concat(pieces))).toBe(true);
  });

  it('on a full disk keeps counting, says where it stopped, and writes again from there once room returns', async () => {
    const disk = mountSmallDisk(2, (cleanup) => cleanups.push(cleanup));
    disk.fill(256 * 1024);
    const path = join(disk.root, 'task', 'output.log');
    const noRoom = vi.fn((error: Error) => (error as NodeJS.ErrnoException).code === 'ENOSPC');
    const log = new TaskLog(path, { ...how(), noRoom });
    const printed = 1024 * 1024;
    for (let at = 0; at < printed; at += LOG_WHOLE_CHUNK_BYTES) log.write(pattern(LOG_WHOLE_CHUNK_BYTES, at));
    await turnsUntil(() => log.waitingSince !== null, 'the log to wait for room');
    expect(noRoom).toHaveBeenCalled();
    const saved = statSync(path).size;
    expect(saved).toBeLessThan(printed);
    expect(log.waitingSince).toBe(saved);
    expect(log.missedBytes).toBe(printed - saved);

    disk.makeRoom();
    expect(log.resume()).toEqual({ atByte: saved, missedBytes: printed - saved });
    log.write(Buffer.from('after the gap'));
    await log.close();
    const kept = readFileSync(path);
    expect(kept.subarray(saved).toString()).toBe('after the gap');
    expect(log.missedBytes).toBe(printed - saved);
    expect(log.damage()).toBeNull();
  });
});

describe('TaskLog direct writes', () => {
  it('are paused for every log sharing the guard after two slow writes in a row, and the bytes stay in order meanwhile', async () => {
    let clock = 0;
    let slow = false;
    // The clock moves past the slow mark during a write only while `slow` is set.
    const guard = new DirectWriteGuard(() => (slow ? (clock += LOG_SLOW_DIRECT_WRITE_MS + 1) : clock), noCpuWait);
    const path = join(dir, 'slow.log');
    const log = new TaskLog(path, { writes: 'direct', guard });
    const [a0, a, b1, b2, c] = [9, 0, 1, 2, 3].map((seed) => pattern(LOG_WHOLE_CHUNK_BYTES, seed)) as [
      Buffer,
      Buffer,
      Buffer,
      Buffer,
      Buffer,
    ];
    // A direct write goes through the guard's timing; a queued one is handed to the thread pool.
    const direct = vi.spyOn(guard, 'time');
    slow = true;
    log.write(a0);
    slow = false;
    expect(guard.allowed).toBe(true); // one slow write alone: the thread may have been preempted
    slow = true;
    log.write(a);
    slow = false;
    expect(statSync(path).size).toBe(a0.length + a.length);
    expect(direct).toHaveBeenCalledTimes(2);
    expect(guard.allowed).toBe(false);
    // Queued now, for this log and any other on the same guard (the second waits behind the first's write).
    log.write(b1);
    log.write(b2);
    const other = new TaskLog(join(dir, 'other.log'), { writes: 'direct', guard });
    other.write(a);
    expect(direct).toHaveBeenCalledTimes(2);
    clock += LOG_DIRECT_PAUSE_FIRST_MS - 1;
    expect(guard.allowed).toBe(false);
    clock += 1;
    expect(guard.allowed).toBe(true);
    // Allowed again, but queued behind what is still queued, never written ahead of it.
    log.write(c);
    expect(direct).toHaveBeenCalledTimes(2);
    await log.close();
    await other.close();
    expect(readFileSync(path).equals(Buffer.concat([a0, a, b1, b2, c]))).toBe(true);
    expect(readFileSync(join(dir, 'other.log')).equals(a)).toBe(true);
  });

  it('stay on after slow writes that never come two in a row', () => {
    let clock = 0;
    let slow = false;
    const guard = new DirectWriteGuard(() => (slow ? (clock += LOG_SLOW_DIRECT_WRITE_MS + 1) : clock), noCpuWait);
    for (let i = 0; i < 5; i++) {
      slow = true;
      guard.time(() => {});
      slow = false;
      guard.time(() => {});
      expect(guard.allowed).toBe(true);
    }
    slow = true;
    guard.time(() => {});
    guard.time(() => {});
    expect(guard.allowed).toBe(false);
  });

  it('pause for twice as long each time the writes are slow again soon after a pause, up to the longest pause; then start short again', () => {
    let clock = 0;
    let slow = false;
    const guard = new DirectWriteGuard(() => (slow ? (clock += LOG_SLOW_DIRECT_WRITE_MS + 1) : clock), noCpuWait);
    /** Two slow writes in a row, then how long direct writes stay paused. */
    const trip = (): number => {
      slow = true;
      guard.time(() => {});
      guard.time(() => {});
      slow = false;
      const from = clock;
      while (!guard.allowed) clock += 100;
      return clock - from;
    };
    // Each pause ends where the loop stops; the next trip comes right away (a disk still stalling).
    const pauses = Array.from({ length: 6 }, trip).map((ms) => Math.ceil(ms / 1000) * 1000);
    expect(pauses).toEqual([2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(Math.max(...pauses)).toBe(LOG_DIRECT_PAUSE_MAX_MS);
    // Quick writes for longer than the longest pause: the next trip is a first one again.
    clock += LOG_DIRECT_PAUSE_MAX_MS;
    expect(Math.ceil(trip() / 1000) * 1000).toBe(LOG_DIRECT_PAUSE_FIRST_MS);
  });

  it('do not count a write slow only for want of a CPU, where the OS says how long the thread waited for one', () => {
    let clock = 0;
    let waited = 0;
    /** A direct write that takes `ms`, `preemptedMs` of them waiting for a CPU. */
    const writeOn = (guard: DirectWriteGuard, ms: number, preemptedMs = 0) =>
      guard.time(() => {
        clock += ms;
        waited += preemptedMs;
      });
    const slowMs = LOG_SLOW_DIRECT_WRITE_MS + 3;
    const preemptedMs = slowMs - LOG_SLOW_DIRECT_WRITE_MS + 1;
    const guard = new DirectWriteGuard(
      () => clock,
      () => waited,
    );
    writeOn(guard, slowMs); // slow: the next write is timed closer
    writeOn(guard, slowMs, preemptedMs);
    writeOn(guard, slowMs, preemptedMs);
    expect(guard.allowed).toBe(true);
    // Still suspected: slow on the disk's account now, right after a slow write, pauses them.
    writeOn(guard, slowMs);
    expect(guard.allowed).toBe(false);
    // Where the OS does not say (not Linux), the same writes count as slow.
    const blind = new DirectWriteGuard(() => clock, noCpuWait);
    writeOn(blind, slowMs);
    writeOn(blind, slowMs, preemptedMs);
    expect(blind.allowed).toBe(false);
  });

  it("read the thread's wait for a CPU from the second figure of Linux's schedstat", () => {
    const file = join(dir, 'schedstat');
    // As the kernel writes it: ns run, ns waited runnable, timeslices.
    writeFileSync(file, '1003841576 656198 5\n');
    expect(threadCpuWaitMs(file)).toBeCloseTo(0.656198, 6);
    expect(threadCpuWaitMs(join(dir, 'missing'))).toBeNull();
    const now = threadCpuWaitMs();
    if (process.platform !== 'linux') expect(now).toBeNull();
    else {
      expect(now).toBeGreaterThanOrEqual(0);
      for (let spun = performance.now(); performance.now() - spun < 20;);
      expect(threadCpuWaitMs()).toBeGreaterThanOrEqual(now!);
    }
  });

  it("write a quiet task's small batch directly when its timer comes, not on the thread pool", async () => {
    const guard = new DirectWriteGuard(() => 0, noCpuWait);
    const direct = vi.spyOn(guard, 'time');
    const path = join(dir, 'small.log');
    const log = new TaskLog(path, { writes: 'direct', guard });
    log.write(Buffer.from('one line\n'));
    log.write(Buffer.from('and another\n'));
    expect(direct).not.toHaveBeenCalled(); // gathered until the flush timer
    vi.advanceTimersByTime(LOG_FLUSH_MS);
    expect(direct).toHaveBeenCalledTimes(1); // written before the timer's callback returned
    expect(readFileSync(path, 'utf8')).toBe('one line\nand another\n');
    await log.close();
  });

  it('are made only on filesystems known to write into memory', () => {
    // This machine's temporary folder is ext4 or tmpfs; /proc is neither (and never a log's home).
    expect(pageCacheFolder(dir)).toBe(process.platform === 'linux');
    expect(pageCacheFolder('/proc')).toBe(false);
    expect(pageCacheFolder(join(dir, 'missing'))).toBe(false);
  });
});
