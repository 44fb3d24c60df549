import type { TaskOutput } from '../../shared/schemas/task.js';
import type { LogTail } from './log-reads.js';
import { renderTerminalText } from './terminal-text.js';

/** A tail read renders at least this much of the newest output first… */
const TAIL_SLICE_MIN_BYTES = 16 * 1024;
/** …or this much per line asked for, whichever is more. */
const TAIL_SLICE_BYTES_PER_LINE = 512;

/** Raw output as a person would read it, optionally only its last lines. */
export async function readableOutput(source: LogTail, tailLines?: number): Promise<TaskOutput> {
  if (tailLines === undefined) {
    return {
      text: await renderTerminalText(source.bytes, { truncated: source.truncated }),
      totalBytes: source.totalBytes,
      truncated: source.truncated,
    };
  }
  // A short tail rarely needs the whole window: render a slice first, the rest only if it falls short.
  const slice = Math.min(source.bytes.length, Math.max(TAIL_SLICE_MIN_BYTES, tailLines * TAIL_SLICE_BYTES_PER_LINE));
  const sizes = slice < source.bytes.length ? [slice, source.bytes.length] : [slice];
  for (const size of sizes) {
    const cut = size < source.bytes.length;
    const text = await renderTerminalText(source.bytes.subarray(source.bytes.length - size), {
      truncated: source.truncated || cut,
    });
    const lines = text.split('\n');
    if (lines.length > tailLines)
      return { text: lines.slice(-tailLines).join('\n'), totalBytes: source.totalBytes, truncated: true };
    if (!cut) return { text, totalBytes: source.totalBytes, truncated: source.truncated };
  }
  return { text: '', totalBytes: source.totalBytes, truncated: source.truncated };
}
