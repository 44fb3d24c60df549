import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDelta, safeEnd, safeStart, sequenceEnd } from '../../electron/pool/delta-read.js';
import { tempDir } from '../helpers.js';

function logWith(bytes: Buffer | string): string {
  const path = join(tempDir(), 'output.log');
  writeFileSync(path, bytes);
  return path;
}

/** Every read from every offset with every size, stitched, gives back the log (no byte lost or doubled). */
async function readAll(path: string, maxBytes: number, finished: boolean): Promise<Buffer[]> {
  const pieces: Buffer[] = [];
  let offset = 0;
  let size = -1;
  for (let guard = 0; guard < 100_000 && offset !== size; guard++) {
    const read = await readDelta(path, offset, maxBytes, finished);
    size = read.size;
    // Every read moves on: a read that returns nothing while more waits would stall a reader forever.
    expect(read.next, `a stall at ${offset} of ${read.size}`).toBeGreaterThan(offset);
    expect(read.from).toBe(offset);
    pieces.push(read.bytes);
    offset = read.next;
  }
  expect(offset).toBe(size);
  return pieces;
}

describe('delta reads of a log (monitor_events)', () => {
  const text =
    'héllo wörld → ✓ 🎉\n\x1b[31mred\x1b[0m \x1b]0;a title\x07 \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ done\n';
  const bytes = Buffer.from(text, 'utf8');

  it('reads forward in pieces of any size, never splitting a character or an escape sequence, losing nothing', async () => {
    const path = logWith(bytes);
    for (let size = 1; size <= 40; size++) {
      const pieces = await readAll(path, size, false);
      expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
      for (const piece of pieces) {
        // Each piece decodes on its own without a replacement character…
        expect(piece.toString('utf8')).not.toContain('\uFFFD');
        // …and every escape sequence in it is whole.
        for (let i = piece.indexOf(0x1b); i >= 0; i = piece.indexOf(0x1b, i + 1)) {
          const end = sequenceEnd(piece, i);
          expect(end, `size ${size}: ${JSON.stringify(piece.toString())}`).not.toBeNull();
        }
      }
    }
  });

  it('moves a start that falls inside a character or a sequence to the next whole one', async () => {
    const path = logWith(bytes);
    const e = bytes.indexOf(Buffer.from('é'));
    expect((await readDelta(path, e + 1, 100, true)).from).toBe(e + 2);
    const csi = bytes.indexOf(Buffer.from('\x1b[31m'));
    const inside = await readDelta(path, csi + 2, 100, true);
    expect(inside.from).toBe(csi + 5);
    expect(inside.bytes.toString().startsWith('red')).toBe(true);
    const osc = bytes.indexOf(Buffer.from('\x1b]0;'));
    expect((await readDelta(path, osc + 4, 100, true)).from).toBe(osc + '\x1b]0;a title\x07'.length);
    // Inside the ST (ESC \) that ends a hyperlink: after it.
    const st = bytes.indexOf(Buffer.from('\x1b\\'));
    expect((await readDelta(path, st + 1, 100, true)).from).toBe(st + 2);
  });

  it('stops before a character or sequence that is not yet whole while the log grows, and returns it whole later', async () => {
    const path = logWith(Buffer.concat([Buffer.from('abc'), Buffer.from('✓').subarray(0, 2)]));
    const first = await readDelta(path, 0, 100, false);
    expect(first).toMatchObject({ from: 0, next: 3, size: 5 });
    writeFileSync(path, Buffer.from('abc✓\x1b[3'));
    const second = await readDelta(path, first.next, 100, false);
    expect(second.bytes.toString()).toBe('✓');
    writeFileSync(path, Buffer.from('abc✓\x1b[32mgo'));
    expect((await readDelta(path, second.next, 100, false)).bytes.toString()).toBe('\x1b[32mgo');
  });

  it('returns a cut tail as it is once the log is finished', async () => {
    const path = logWith(Buffer.from('ok\x1b[3'));
    expect(await readDelta(path, 0, 100, true)).toMatchObject({ from: 0, next: 5, size: 5 });
    expect((await readDelta(path, 0, 100, false)).next).toBe(2);
  });

  it('makes progress with max_bytes smaller than one character', async () => {
    const path = logWith('🎉🎉');
    expect(await readDelta(path, 0, 1, false)).toMatchObject({ from: 0, next: 4 });
    expect(await readDelta(path, 4, 2, false)).toMatchObject({ from: 4, next: 8 });
  });

  it('reads a missing log as empty and an offset past the end as the end', async () => {
    expect(await readDelta(join(tempDir(), 'none.log'), 5, 100, false)).toMatchObject({ next: 0, size: 0 });
    expect(await readDelta(logWith('abc'), 10, 100, false)).toMatchObject({ from: 3, next: 3, size: 3 });
  });

  it('gets past a sequence longer than a read (a clipboard write) and an unterminated one, finished or not', async () => {
    const clipboard = `before\n\x1b]52;c;${'QUJD'.repeat(5_000)}\x07after\n`;
    const stray = `title \x1b]0;never closed${'x'.repeat(30_000)}`;
    for (const text of [clipboard, stray]) {
      const path = logWith(text);
      for (const finished of [true, false]) {
        const pieces = await readAll(path, 8_192, finished);
        expect(Buffer.concat(pieces).toString()).toBe(text);
      }
    }
    // A stray ESC ] ends at the line end, so the lines after it read as text.
    const path = logWith('a\x1b]0;oops\nnext line\n');
    const read = await readDelta(path, 0, 5, false);
    expect(read.bytes.toString()).toBe('a');
    expect((await readDelta(path, read.next, 100, false)).bytes.toString()).toBe('\x1b]0;oops\nnext line\n');
  });

  it('keeps bytes that are not UTF-8 (Latin-1 text): a stray continuation byte is a character of its own', async () => {
    const latin1 = Buffer.from('\xa9 caf\xe9 \xa9\xa9\xa9 na\xefve', 'latin1');
    const path = logWith(latin1);
    for (let size = 1; size <= 12; size++)
      expect(Buffer.concat(await readAll(path, size, true)).equals(latin1)).toBe(true);
  });

  it('knows where each kind of sequence ends', () => {
    const at = (s: string) => sequenceEnd(Buffer.from(s), 0);
    expect(at('\x1b[1;31mX')).toBe(7);
    expect(at('\x1b[1;3')).toBeNull();
    expect(at('\x1b]0;t\x07X')).toBe(6);
    expect(at('\x1b]0;t\x1b\\X')).toBe(7);
    expect(at('\x1b]0;t')).toBeNull();
    expect(at('\x1b(BX')).toBe(3);
    expect(at('\x1b7X')).toBe(2);
    expect(at('\x1b')).toBeNull();
    expect(at('\x1b]0;t\nX')).toBe(5);
    expect(safeStart(Buffer.from('abc'), 0)).toBe(0);
    expect(safeEnd(Buffer.from('ab\x1b'), 0, 3)).toBe(2);
  });
});
