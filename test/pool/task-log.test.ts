import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOG_FLUSH_MS, LOG_WRITE_BATCH_BYTES, TaskLog } from '../../electron/pool/task-log.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'drover-task-log-'));
  // Only the log's flush timer is faked: the file's writes still run, and setImmediate still turns.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
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
