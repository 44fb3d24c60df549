import { createReadStream } from 'node:fs';

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
  let rest = '';
  const consider = (raw: string): boolean => {
    line++;
    // Lines end at \n only: a lone \r is a redraw within the line, and its last state is what shows.
    const visible = (raw.split('\r').filter(Boolean).at(-1) ?? '').replace(ESCAPES, '');
    if (!visible.toLowerCase().includes(needle)) return true;
    if (matches.length >= maxMatches) {
      truncated = true;
      return false;
    }
    matches.push({ line, text: visible.length > 2_000 ? `${visible.slice(0, 2_000)}…` : visible });
    return true;
  };
  let stream;
  try {
    stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 });
    for await (const chunk of stream as AsyncIterable<string>) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const raw of lines) if (!consider(raw)) return { matches, truncated, linesSearched: line };
    }
  } catch {
    return { matches, truncated, linesSearched: line };
  } finally {
    stream?.destroy();
  }
  if (rest) consider(rest);
  return { matches, truncated, linesSearched: line };
}
