import { countLogNewlines, readLogRange } from '../pool/log-reads.js';
import { renderTerminalText } from '../pool/terminal-text.js';

// What of a log the model sees inline, and exactly what of the whole log it leaves out (moved out of tools.ts).

/** Output the model may see inline; the newest part matters most (verdicts, final errors). */
export const INLINE_OUTPUT_MAX_CHARS = 30_000;

export interface InlineOutput {
  text: string;
  omittedBytes: number;
  omittedLines: number;
  /** The shown part starts inside a line: one line alone was longer than the inline limit. */
  startsMidLine: boolean;
}

/** A render over the limit is retried on at most this share of its bytes, so a few renders suffice. */
const INLINE_RETRY_SHARE_MAX = 0.9;

/**
 * The newest part of a log that renders within the inline limit, cut where a line starts (inside
 * a line only when one line alone is too long), with the bytes and lines of the whole log before
 * the cut, counted exactly. Only the tail is read; lines are counted by streaming. A running
 * task's log is read as far as it is on disk.
 */
export async function readInlineOutput(
  logPath: string,
  windowBytes: number,
  tailLines?: number,
): Promise<InlineOutput> {
  const tail = await readLogRange(logPath, undefined, windowBytes);
  const bytes = tail.bytes;
  // Of a window that starts inside the log, the first byte only tells whether the next starts a line.
  const earliest = tail.fromByte === 0 ? 0 : 1;
  let cut = tailLines === undefined ? lineStartFrom(bytes, earliest) : newestLinesStart(bytes, tailLines, earliest);
  let text = await renderTerminalText(bytes.subarray(cut));
  while (text.length > INLINE_OUTPUT_MAX_CHARS) {
    const keep = Math.floor(
      (bytes.length - cut) * Math.min(INLINE_RETRY_SHARE_MAX, INLINE_OUTPUT_MAX_CHARS / text.length),
    );
    // A line start soon after the aim is taken; one far after it would hide the end of a long line.
    cut = lineStartFrom(bytes, bytes.length - keep, keep / 2);
    text = await renderTerminalText(bytes.subarray(cut));
  }
  const omittedBytes = tail.fromByte + cut;
  const startsMidLine = omittedBytes > 0 && bytes[cut - 1] !== 0x0a;
  return { text, omittedBytes, omittedLines: await countLogNewlines(logPath, omittedBytes), startsMidLine };
}

/** The first line start in `at` … `at + slack`; else (inside a line too long) the first character start from `at`. */
function lineStartFrom(bytes: Buffer, at: number, slack = Infinity): number {
  if (at === 0 || bytes[at - 1] === 0x0a) return at;
  const newline = bytes.indexOf(0x0a, at);
  if (newline !== -1 && newline + 1 < bytes.length && newline + 1 - at <= slack) return newline + 1;
  let start = at;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return start;
}

/** Where the newest `count` lines begin (a final newline ends the last line, it starts none). */
function newestLinesStart(bytes: Buffer, count: number, earliest: number): number {
  let position = bytes[bytes.length - 1] === 0x0a ? bytes.length - 1 : bytes.length;
  for (let found = 0; found < count; found++) {
    position = position > 0 ? bytes.lastIndexOf(0x0a, position - 1) : -1;
    if (position === -1) return lineStartFrom(bytes, earliest);
  }
  return position + 1;
}

/** Drover's own words, outside the fence: how much of the whole log the model is not shown. */
export function omittedNote(shown: InlineOutput, logPath: string): string {
  if (shown.omittedBytes === 0) return '';
  const counted = (n: number, unit: string) => `${n.toLocaleString('en-US')} ${unit}${n === 1 ? '' : 's'}`;
  const lines = `${counted(shown.omittedLines, 'line')}${shown.startsMidLine ? ' and the start of the next' : ''}`;
  return `[The first ${counted(shown.omittedBytes, 'byte')} (${lines}) of the log are not shown; the full log is ${logPath}]\n`;
}
