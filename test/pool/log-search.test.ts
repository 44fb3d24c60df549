import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTEXT_BEFORE, READ_CHUNK, SHOWN_CHARS, searchLog } from '../../electron/pool/log-search.js';
import { tempDir } from '../helpers.js';

function logOf(text: string): string {
  const path = join(tempDir(), 'output.log');
  writeFileSync(path, text);
  return path;
}

/** Padding lines (ASCII, so characters are bytes) that make `line` begin `before` characters ahead of a read boundary. */
function straddling(line: string, before: number): { text: string; padLines: number } {
  const pad = READ_CHUNK - before;
  const lines = Math.floor(pad / 100);
  const first = pad - lines * 100;
  const padding = (first > 0 ? `${'.'.repeat(first - 1)}\n` : '') + `${'.'.repeat(99)}\n`.repeat(lines);
  return { text: padding + line, padLines: lines + (first > 0 ? 1 : 0) };
}

describe('searchLog', () => {
  it('matches case-insensitively with escapes ignored, redraws reduced, and counts lines', async () => {
    const path = logOf(
      'first\n\x1b[1mNee\x1b[0mdle bold\nold needle 10%\rnew state 100%\nprogress\rneedle last\r\n\x1b]0;needle title\x07plain\nneedle at the end',
    );
    const found = await searchLog(path, 'NEEDLE', 10);
    expect(found).toEqual({
      matches: [
        { line: 2, text: 'Needle bold' },
        { line: 4, text: 'needle last' },
        { line: 6, text: 'needle at the end' },
      ],
      truncated: false,
      linesSearched: 6,
    });
  });

  it('stops at maxMatches and says so', async () => {
    const found = await searchLog(logOf('hit\n'.repeat(50)), 'hit', 3);
    expect(found.matches.map((m) => m.line)).toEqual([1, 2, 3]);
    expect(found).toMatchObject({ truncated: true, linesSearched: 4 });
  });

  it('answers an empty result for a log that is missing', async () => {
    expect(await searchLog(join(tempDir(), 'gone.log'), 'x', 5)).toEqual({
      matches: [],
      truncated: false,
      linesSearched: 0,
    });
  });

  it('finds a match, an escape and an OSC terminator that straddle a read boundary, at every cut', async () => {
    const lines = [
      'before NEEDLE after',
      'nee\x1b[38;5;196mdle split by a colour',
      'x\x1b]8;;https://example.com/needle\x1b\\link text needle',
      'ten 10%\rtwenty 20%\rneedle 100%\r',
      'NEEDLE in CRLF\r',
      'caf\u00e9 needle caf\u00e9',
      // Erased by its last state: no match, whole or cut.
      'needle erased\r\x1b[2K\r',
    ];
    for (const line of lines) {
      const alone = await searchLog(logOf(`${line}\n`), 'needle', 5);
      expect(alone.matches).toHaveLength(line.includes('erased') ? 0 : 1);
      for (let before = 1; before < line.length + 2; before++) {
        const { text, padLines } = straddling(`${line}\nafter\n`, before);
        const found = await searchLog(logOf(text), 'needle', 5);
        expect(found.matches, `${JSON.stringify(line)} cut ${before} characters in`).toEqual(
          alone.matches.map((m) => ({ ...m, line: padLines + 1 })),
        );
        expect(found.linesSearched).toBe(padLines + 2);
      }
    }
  });

  it('keeps a CRLF line ending out of the text when the \\r and \\n fall in different reads', async () => {
    const { text, padLines } = straddling('ends with CRLF\r\nnext\r\n', 'ends with CRLF\r'.length);
    const found = await searchLog(logOf(text), 'crlf', 5);
    expect(found.matches).toEqual([{ line: padLines + 1, text: 'ends with CRLF' }]);
    expect(found.linesSearched).toBe(padLines + 2);
  });

  it('searches one huge line in bounded windows and shows the text around the first match', async () => {
    const filler = '\x1b[32mabcdefghij\x1b[0m'.repeat(400_000); // 7.6 MB; 4 MB of visible text
    const found = await searchLog(logOf(`${filler}find the NEEDLE here${filler}\n`), 'needle', 5);
    expect(found).toMatchObject({ truncated: false, linesSearched: 1 });
    const text = found.matches[0]!.text;
    expect(text.startsWith('…') && text.endsWith('…')).toBe(true);
    expect(text.length).toBe(SHOWN_CHARS + 2);
    expect(text.indexOf('NEEDLE')).toBe(1 + CONTEXT_BEFORE);
    expect(text).not.toContain('\x1b');
  });

  it('reduces redraws inside a huge line to its last non-empty state', async () => {
    const big = 'y'.repeat(3 * READ_CHUNK);
    // An early state holds the needle; the last state does not, so the line is no match.
    expect((await searchLog(logOf(`${big}needle${big}\r${big}\n`), 'needle', 5)).matches).toEqual([]);
    // The last state holds it; the earlier states do not show.
    const found = await searchLog(logOf(`${'z'.repeat(5 * READ_CHUNK)}\r${big}needle\r\n`), 'needle', 5);
    expect(found.matches).toHaveLength(1);
    expect(found.matches[0]!.text).toMatch(/^…y+needle$/);
  });

  it('shows a long line from its start when the match lies in its first characters', async () => {
    const found = await searchLog(logOf(`needle ${'w'.repeat(5_000)}\n`), 'needle', 5);
    expect(found.matches[0]!.text).toBe(`needle ${'w'.repeat(SHOWN_CHARS - 7)}…`);
  });
});
