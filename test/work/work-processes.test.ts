import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkLedger } from '../../electron/work/work-ledger.js';
import { tempDir } from '../helpers.js';
import {
  CLAIM_ITEMS,
  EDGE_ITEMS,
  edgePairs,
  edgeStaysAfter,
  METADATA_ITEM,
  METADATA_KEYS_PER_WRITER,
  PLAN_ITEM_COUNT,
} from './fixtures/work-plan.js';

/**
 * Several real processes write one work.sqlite at once (issue #15: "concurrent writers from
 * several processes never lose an update"). Nothing here waits for time: the writers start
 * together on a "go" line and the test waits for them to exit, so a busy machine only makes it slower.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const WRITER = resolve(import.meta.dirname, 'fixtures/work-writer.ts');
const WRITERS = 4;
const LIST = 'shared-board';
const running: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Writer {
  ready: Promise<void>;
  done: Promise<unknown>;
  go(): void;
}

function startWriter(dataDir: string, index: number, args: string[]): Writer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WRITER, dataDir, LIST, String(index), String(WRITERS), ...args],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  running.push(child);
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (/^ready$/m.test(stdout)) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<unknown>((resolveDone, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const line = /^result (.*)$/m.exec(stdout)?.[1];
      if (code !== 0 || !line) reject(new Error(`writer ${index} exited with ${code}: ${stderr || stdout}`));
      else resolveDone(JSON.parse(line));
    });
  });
  // A writer that dies before it is ready fails the test through `done`, not a hang.
  const readyOrDead = Promise.race([ready, done.then(() => {})]);
  return { ready: readyOrDead, done, go: () => child.stdin.end('go\n') };
}

async function runTogether(dataDir: string, args: string[]): Promise<unknown[]> {
  const writers = Array.from({ length: WRITERS }, (_, index) => startWriter(dataDir, index, args));
  await Promise.all(writers.map((writer) => writer.ready));
  for (const writer of writers) writer.go();
  return Promise.all(writers.map((writer) => writer.done));
}

describe('work ledger shared by several processes', () => {
  it('gives every item a distinct id when processes open a new folder and create at once', async () => {
    const dataDir = tempDir();
    const results = (await runTogether(dataDir, ['create', '50'])) as { ids: number[] }[];
    const ids = results.flatMap((result) => result.ids);
    expect(ids).toHaveLength(WRITERS * 50);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: WRITERS * 50 }, (_, index) => index + 1));
    for (const result of results) expect(result.ids).toEqual([...result.ids].sort((a, b) => a - b));
  }, 60_000);

  it('loses no metadata merge, claim or edge change when 4 processes update the same items at once', async () => {
    const dataDir = tempDir();
    const ledger = WorkLedger.open(dataDir);
    try {
      for (let id = 1; id <= PLAN_ITEM_COUNT; id += 1) ledger.create(LIST, { subject: `item ${id}` });
      const before = ledger.revision(LIST);

      const results = (await runTogether(dataDir, ['mixed'])) as {
        claimed: number[];
        refused: number;
        updates: number;
        edgeOps: number;
      }[];

      const updates = results.reduce((sum, result) => sum + result.updates, 0);
      expect(updates).toBeGreaterThanOrEqual(1_000);
      // Every committed change bumped the list's revision exactly once.
      expect(ledger.revision(LIST) - before).toBe(updates);

      // 4 × 250 distinct keys merged into one item: every one is there, with its value.
      const metadata = ledger.get(LIST, METADATA_ITEM).metadata;
      expect(Object.keys(metadata)).toHaveLength(WRITERS * METADATA_KEYS_PER_WRITER);
      for (let writer = 0; writer < WRITERS; writer += 1)
        for (let k = 0; k < METADATA_KEYS_PER_WRITER; k += 1) expect(metadata[`w${writer}-k${k}`]).toBe(k);

      // Each contested item has exactly one owner: the one writer told its claim succeeded.
      const claims = results.flatMap((result, writer) => result.claimed.map((id) => [id, `w${writer}`] as const));
      expect(claims.map(([id]) => id).sort((a, b) => a - b)).toEqual(CLAIM_ITEMS);
      for (const [id, owner] of claims) expect(ledger.get(LIST, id).owner).toBe(owner);
      expect(results.reduce((sum, result) => sum + result.refused, 0)).toBe(CLAIM_ITEMS.length * (WRITERS - 1));

      // Every edge ends as its writer left it, seen the same from both ends.
      const expected = new Set(
        edgePairs()
          .filter((_, index) => edgeStaysAfter(index))
          .map(([blocker, blocked]) => `${blocker}>${blocked}`),
      );
      const seenFromBlocked = new Set<string>();
      const seenFromBlocker = new Set<string>();
      for (const id of EDGE_ITEMS) {
        const item = ledger.get(LIST, id);
        for (const blocker of item.blockedBy) seenFromBlocked.add(`${blocker}>${id}`);
        for (const blocked of item.blocks) seenFromBlocker.add(`${id}>${blocked}`);
      }
      expect([...seenFromBlocked].sort()).toEqual([...expected].sort());
      expect([...seenFromBlocker].sort()).toEqual([...expected].sort());
    } finally {
      ledger.close();
    }
  }, 60_000);
});
