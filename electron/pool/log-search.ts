import { createReadStream } from 'node:fs';

/** Escape sequences (CSI, OSC and two-byte ones) removed for matching; the log itself is untouched. */
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
/** The end of a text that may be the start of an escape whose rest has not been read yet. */
const UNFINISHED_ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*)?$/;
const OPEN_OSC = /^\x1b\][^\x07\x1b]*$/;

/** Characters of a matching line shown at most; more is cut with an ellipsis. */
export const SHOWN_CHARS = 2_000;
/** When a match lies beyond the first SHOWN_CHARS of its line, this much text before it is shown. */
export const CONTEXT_BEFORE = 500;
/**
 * The longest escape sequence held back at a read boundary to be recognised whole. An OSC
 * (a window title, a hyperlink) longer than this that straddles a read is not recognised: its
 * `ESC ]` is dropped and its body searched as text.
 */
export const LONGEST_ESCAPE = 64 * 1024;
/** Characters read at a time (64 KiB keeps each read out of the heap's large-object space, which made 256 KiB reads slower per byte). */
export const READ_CHUNK = 64 * 1024;

export interface LogMatch {
  line: number;
  text: string;
}

export interface SearchResult {
  matches: LogMatch[];
  truncated: boolean;
  linesSearched: number;
}

/** What one `\r`-separated state of a line turned out to be. */
interface SegmentResult {
  /** The raw text was not empty (a segment of escapes alone still counts, and shows as nothing). */
  nonEmpty: boolean;
  text: string | null;
}

/**
 * Scans one redraw state of a line (the text between two carriage returns) as it streams in,
 * keeping only bounded pieces: the escape held back at a read boundary, the first SHOWN_CHARS of
 * visible text, a little recent text for matches that straddle reads, and the window around
 * the first match.
 */
class SegmentScanner {
  private raw = '';
  private nonEmpty = false;
  private visibleCount = 0;
  private head = '';
  private recent = '';
  private matchAt = -1;
  private windowStart = 0;
  private window = '';

  constructor(private readonly needle: string) {}

  reset(): void {
    this.raw = '';
    this.nonEmpty = false;
    this.visibleCount = 0;
    this.head = '';
    this.recent = '';
    this.matchAt = -1;
    this.window = '';
  }

  feed(text: string): void {
    if (!text) return;
    this.nonEmpty = true;
    const raw = this.raw + text;
    const hold = heldFrom(raw);
    this.raw = raw.slice(hold);
    this.take(raw.slice(0, hold).replace(ESCAPES, ''));
  }

  finish(): SegmentResult {
    if (this.raw) this.take(this.raw.replace(ESCAPES, ''));
    this.raw = '';
    return { nonEmpty: this.nonEmpty, text: this.matchAt < 0 ? null : this.shown() };
  }

  private shown(): string {
    if (this.matchAt + this.needle.length <= SHOWN_CHARS)
      return this.visibleCount > SHOWN_CHARS ? `${this.head}…` : this.head;
    const more = this.visibleCount > this.windowStart + this.window.length;
    return `${this.windowStart > 0 ? '…' : ''}${this.window}${more ? '…' : ''}`;
  }

  /** Takes visible text (escapes removed) in order. */
  private take(visible: string): void {
    if (!visible) return;
    const before = this.visibleCount;
    if (this.head.length < SHOWN_CHARS) this.head += visible.slice(0, SHOWN_CHARS - this.head.length);
    if (this.matchAt < 0) {
      // The last needle-length-minus-one characters join the new text, so a match across reads is found.
      const overlap = this.needle.length > 1 ? this.recent.slice(-(this.needle.length - 1)) : '';
      const found = (overlap + visible).toLowerCase().indexOf(this.needle);
      if (found >= 0) {
        this.matchAt = before - overlap.length + found;
        const known = this.recent + visible;
        const knownStart = before - this.recent.length;
        this.windowStart = Math.max(0, this.matchAt - CONTEXT_BEFORE, knownStart);
        this.window = known.slice(this.windowStart - knownStart, this.windowStart - knownStart + SHOWN_CHARS);
      } else {
        const keep = CONTEXT_BEFORE + this.needle.length;
        this.recent = visible.length >= keep ? visible.slice(-keep) : (this.recent + visible).slice(-keep);
      }
    } else if (this.window.length < SHOWN_CHARS) {
      this.window += visible.slice(0, SHOWN_CHARS - this.window.length);
    }
    this.visibleCount = before + visible.length;
  }
}

/**
 * The same rule as SegmentScanner for a line read whole (the common case, kept fast): its last
 * non-empty redraw state, escapes removed, shown around the first match; null without a match.
 */
function shownWhole(raw: string, needle: string): string | null {
  const visible = (raw.includes('\r') ? (raw.split('\r').filter(Boolean).at(-1) ?? '') : raw).replace(ESCAPES, '');
  const at = visible.toLowerCase().indexOf(needle);
  if (at < 0) return null;
  if (visible.length <= SHOWN_CHARS) return visible;
  if (at + needle.length <= SHOWN_CHARS) return `${visible.slice(0, SHOWN_CHARS)}…`;
  const start = at - CONTEXT_BEFORE;
  return `${start > 0 ? '…' : ''}${visible.slice(Math.max(0, start), start + SHOWN_CHARS)}${visible.length > start + SHOWN_CHARS ? '…' : ''}`;
}

/** Where the unread rest of an escape may begin near the end of `raw` (raw.length when none may). */
function heldFrom(raw: string): number {
  const last = raw.lastIndexOf('\x1b');
  if (last < 0 || raw.length - last > LONGEST_ESCAPE) return raw.length;
  const tail = raw.slice(last);
  if (!UNFINISHED_ESCAPE.test(tail)) return raw.length;
  // A lone ESC at the end may be the first half of the `ESC \` that ends an OSC opened before it.
  if (tail === '\x1b') {
    const open = raw.lastIndexOf('\x1b', last - 1);
    if (open >= 0 && raw.length - open <= LONGEST_ESCAPE && OPEN_OSC.test(raw.slice(open, last))) return open;
  }
  return last;
}

/**
 * Searches a whole log, line by line, without loading it: case-insensitive, with escape
 * sequences ignored and carriage-return redraws reduced to their last non-empty state.
 *
 * The log streams through in fixed reads, and a line is never held whole, so time grows with
 * the log's size even when the log is one gigantic line (issue #12). A match shows its line
 * when the line is short; a longer line shows its first SHOWN_CHARS when the first match lies
 * there, else a window of SHOWN_CHARS starting CONTEXT_BEFORE characters before the first match.
 * Redraws are reduced exactly at any size; the one thing that differs for text larger than a
 * read is an OSC longer than LONGEST_ESCAPE straddling a read boundary (see there).
 */
export async function searchLog(path: string, query: string, maxMatches: number): Promise<SearchResult> {
  const needle = query.toLowerCase();
  const matches: LogMatch[] = [];
  const segment = new SegmentScanner(needle);
  let line = 0;
  let truncated = false;
  /** The current line began in an earlier read, so it streams through the scanner. */
  let lineHasText = false;
  /** The last finished non-empty redraw state of the current line; what shows if nothing follows it. */
  let lastState: SegmentResult | null = null;

  const endSegment = () => {
    const state = segment.finish();
    segment.reset();
    if (state.nonEmpty) lastState = state;
  };
  /** Counts the line and records it when it matches; false once the cap is passed. */
  const endLine = (whole?: string): boolean => {
    line++;
    let shown: string | null;
    if (whole !== undefined) shown = shownWhole(whole, needle);
    else {
      endSegment();
      shown = lastState?.text ?? null;
      lastState = null;
    }
    lineHasText = false;
    if (shown === null) return true;
    if (matches.length >= maxMatches) {
      truncated = true;
      return false;
    }
    matches.push({ line, text: shown });
    return true;
  };
  /** Feeds text of one line (no `\n` in it), ending a redraw state at each `\r`. */
  const feedLine = (text: string) => {
    if (!text) return;
    lineHasText = true;
    let from = 0;
    for (let cr = text.indexOf('\r'); cr >= 0; cr = text.indexOf('\r', from)) {
      segment.feed(text.slice(from, cr));
      endSegment();
      from = cr + 1;
    }
    segment.feed(text.slice(from));
  };

  const result = () => ({ matches, truncated, linesSearched: line });
  let stream;
  try {
    stream = createReadStream(path, { encoding: 'utf8', highWaterMark: READ_CHUNK });
    for await (const chunk of stream as AsyncIterable<string>) {
      let from = 0;
      for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', from)) {
        // A line that lies whole in this read is judged at once; one begun in an earlier read streams.
        const text = chunk.slice(from, nl);
        if (lineHasText) feedLine(text);
        if (!endLine(lineHasText ? undefined : text)) return result();
        from = nl + 1;
      }
      feedLine(chunk.slice(from));
    }
  } catch {
    return result();
  } finally {
    stream?.destroy();
  }
  if (lineHasText) endLine();
  return result();
}
