import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { READ_CHUNK, countOccurrences, scanLog } from '../../electron/pool/log-search.js';
import { tempDir } from '../helpers.js';

function logOf(text: string): string {
  const path = join(tempDir(), 'output.log');
  writeFileSync(path, text);
  return path;
}

describe('scanLog', () => {
  it('counts every occurrence, lists lines with their byte offsets, and counts past the cap', async () => {
    const path = logOf('hit hit\nmiss\ncafé hit\n\x1b[1mHIT\x1b[0m\n');
    const found = await scanLog(path, 'hit', { maxMatches: 2 });
    expect(found.matches).toEqual([
      { line: 1, byte: 0, count: 2, text: 'hit hit' },
      // "café" is five bytes: the offset is in bytes, not characters.
      { line: 3, byte: 13, count: 1, text: 'café hit' },
    ]);
    expect(found).toMatchObject({ truncated: true, total: 4, settledTotal: 4, resumeLine: 5, linesSearched: 4 });
    expect(found.resumeByte).toBe(Buffer.byteLength('hit hit\nmiss\ncafé hit\n\x1b[1mHIT\x1b[0m\n'));
  });

  it('resumes at an unfinished last line and never counts it twice as the log grows', async () => {
    const path = logOf('one needle\ntwo need');
    const first = await scanLog(path, 'needle', { maxMatches: 10 });
    expect(first).toMatchObject({ total: 1, settledTotal: 1, resumeByte: 11, resumeLine: 2 });
    appendFileSync(path, 'le needle\nthree\nfour needle');
    const next = await scanLog(path, 'needle', {
      maxMatches: 10,
      fromByte: first.resumeByte,
      firstLine: first.resumeLine,
    });
    expect(next.matches.map((m) => [m.line, m.count])).toEqual([
      [2, 2],
      [4, 1],
    ]);
    // The unfinished "four needle" is counted in total only; the next scan starts at its first byte.
    expect(next).toMatchObject({ total: 3, settledTotal: 2, resumeLine: 4 });
    expect(next.resumeByte).toBe(Buffer.byteLength('one needle\ntwo needle needle\nthree\n'));
  });

  it('counts a match that straddles a read boundary once, in the last redraw state only', async () => {
    const pad = 'x'.repeat(READ_CHUNK - 3);
    const path = logOf(`${pad}needle and needle\nold needle\rnew\n`);
    const found = await scanLog(path, 'needle', { maxMatches: 5 });
    expect(found.total).toBe(2);
    expect(found.matches).toHaveLength(1);
    expect(found.matches[0]).toMatchObject({ line: 1, count: 2 });
  });

  it('counts overlapping occurrences as the terminal search does', () => {
    expect(countOccurrences('aaaa', 'aa')).toBe(3);
    expect(countOccurrences('Needle NEEDLE', 'needle')).toBe(2);
  });
});
