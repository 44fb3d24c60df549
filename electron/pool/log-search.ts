import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** Escape sequences (CSI, OSC and two-byte ones) removed for matching; the log itself is untouched. */
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export interface LogMatch {
  line: number;
  text: string;
}

/**
 * Searches a whole log, line by line, without loading it: case-insensitive, with escape
 * sequences ignored and carriage-return redraws reduced to their last state.
 */
export async function searchLog(path: string, query: string, maxMatches: number): Promise<{ matches: LogMatch[]; truncated: boolean; linesSearched: number }> {
  const needle = query.toLowerCase();
  const matches: LogMatch[] = [];
  let line = 0;
  let truncated = false;
  let stream;
  try {
    stream = createReadStream(path, { encoding: 'utf8' });
    await new Promise<void>((resolve, reject) => {
      stream!.once('open', () => resolve());
      stream!.once('error', reject);
    });
  } catch {
    return { matches, truncated, linesSearched: 0 };
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const raw of lines) {
    line++;
    const visible = (raw.split('\r').filter(Boolean).at(-1) ?? '').replace(ESCAPES, '');
    if (!visible.toLowerCase().includes(needle)) continue;
    if (matches.length >= maxMatches) {
      truncated = true;
      break;
    }
    matches.push({ line, text: visible.length > 2_000 ? `${visible.slice(0, 2_000)}…` : visible });
  }
  lines.close();
  stream.destroy();
  return { matches, truncated, linesSearched: line };
}
