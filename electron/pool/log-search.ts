import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

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

/** A matching line of a scan: where it starts in the log, and how many times the query occurs in it. */
export interface ScanMatch extends LogMatch {
  /** The byte offset of the line's first byte in the log. */
  byte: number;
  count: number;
}

export interface ScanOptions {
  /** Lines listed at most; the rest are still counted. */
  maxMatches: number;
  /** Where to begin: the first byte of a line (a scan's `resumeByte`), 0 by default. */
  fromByte?: number | undefined;
  /** The number of the line that begins at `fromByte` (a scan's `resumeLine`), 1 by default. */
  firstLine?: number | undefined;
}

/**
 * A scan of a log from a line's start to its end, for a search that follows a growing log: the
 * count of every occurrence, the matching lines (up to the cap), and where to resume. The last
 * line is unfinished when the log does not end in a line feed; it is counted in `total` but not
 * in `settledTotal`, and a later scan resumes at its start, so it is never counted twice.
 */
export interface ScanResult {
  matches: ScanMatch[];
  /** More lines matched than were listed. */
  truncated: boolean;
  /** Occurrences from `fromByte` to the end of the log, the unfinished last line included. */
  total: number;
  /** Occurrences in the lines that ended (a line feed) before `resumeByte`. */
  settledTotal: number;
  /** Where the next scan begins: the unfinished last line's first byte, or the end of the log. */
  resumeByte: number;
  /** The number of the line at `resumeByte`. */
  resumeLine: number;
  linesSearched: number;
}

/** What one `\r`-separated state of a line turned out to be. */
interface SegmentResult {
  /** The raw text was not empty (a segment of escapes alone still counts, and shows as nothing). */
  nonEmpty: boolean;
  text: string | null;
  /** Occurrences of the query in its visible text. */
  count: number;
}

/** Occurrences of `needle` (lower case) in `text`, overlapping ones included as the terminal's search finds them. */
export function countOccurrences(text: string, needle: string): number {
  if (!needle) return 0;
  const haystack = text.toLowerCase();
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
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
  /** Occurrences so far, and the visible text's last needle-length-minus-one characters, for one that straddles reads. */
  private count = 0;
  private countTail = '';

  constructor(private readonly needle: string) {}

  reset(): void {
    this.raw = '';
    this.nonEmpty = false;
    this.visibleCount = 0;
    this.head = '';
    this.recent = '';
    this.matchAt = -1;
    this.window = '';
    this.count = 0;
    this.countTail = '';
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
    return { nonEmpty: this.nonEmpty, text: this.matchAt < 0 ? null : this.shown(), count: this.count };
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
    const counted = this.countTail + visible;
    this.count += countOccurrences(counted, this.needle);
    this.countTail = this.needle.length > 1 ? counted.slice(-(this.needle.length - 1)) : '';
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
function shownWhole(raw: string, needle: string): { text: string | null; count: number } {
  const visible = (raw.includes('\r') ? (raw.split('\r').filter(Boolean).at(-1) ?? '') : raw).replace(ESCAPES, '');
  const at = visible.toLowerCase().indexOf(needle);
  if (at < 0) return { text: null, count: 0 };
  const count = countOccurrences(visible, needle);
  if (visible.length <= SHOWN_CHARS) return { text: visible, count };
  if (at + needle.length <= SHOWN_CHARS) return { text: `${visible.slice(0, SHOWN_CHARS)}…`, count };
  const start = at - CONTEXT_BEFORE;
  const text = `${start > 0 ? '…' : ''}${visible.slice(Math.max(0, start), start + SHOWN_CHARS)}${visible.length > start + SHOWN_CHARS ? '…' : ''}`;
  return { text, count };
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
  const scan = await scanLog(path, query, { maxMatches }, true);
  return {
    matches: scan.matches.map(({ line, text }) => ({ line, text })),
    truncated: scan.truncated,
    linesSearched: scan.linesSearched,
  };
}

/**
 * The same search as `searchLog`, from a line's start (`fromByte`) to the end of the log, counting
 * every occurrence past the listing cap: what a terminal view's "3 of 41" needs, and, fed its own
 * `resumeByte` and `resumeLine`, a cheap follow-up while the log grows.
 */
export async function scanLog(
  path: string,
  query: string,
  options: ScanOptions,
  stopAtCap = false,
): Promise<ScanResult> {
  const { maxMatches, fromByte = 0, firstLine = 1 } = options;
  const needle = query.toLowerCase();
  const matches: ScanMatch[] = [];
  const segment = new SegmentScanner(needle);
  let line = firstLine - 1;
  let truncated = false;
  let total = 0;
  /** The current line began in an earlier read, so it streams through the scanner. */
  let lineHasText = false;
  /** The last finished non-empty redraw state of the current line; what shows if nothing follows it. */
  let lastState: SegmentResult | null = null;
  /** Where the current line began in the log, and where the next read begins. */
  let lineStart = fromByte;
  let readAt = fromByte;

  const endSegment = () => {
    const state = segment.finish();
    segment.reset();
    if (state.nonEmpty) lastState = state;
  };
  /** Counts the line and records it when it matches; false once the cap is passed and the scan should stop. */
  const endLine = (whole?: string): boolean => {
    line++;
    let shown: { text: string | null; count: number };
    if (whole !== undefined) shown = shownWhole(whole, needle);
    else {
      endSegment();
      shown = { text: lastState?.text ?? null, count: lastState?.count ?? 0 };
      lastState = null;
    }
    lineHasText = false;
    if (shown.text === null) return true;
    if (matches.length >= maxMatches) {
      truncated = true;
      if (stopAtCap) return false;
      total += shown.count;
      return true;
    }
    total += shown.count;
    matches.push({ line, byte: lineStart, count: shown.count, text: shown.text });
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

  const result = (): ScanResult => ({
    matches,
    truncated,
    total,
    settledTotal: total,
    resumeByte: lineStart,
    resumeLine: line + 1,
    linesSearched: line - (firstLine - 1),
  });
  // Bytes are split at line feeds (never inside a UTF-8 character), then decoded: the offsets stay exact.
  const decoder = new StringDecoder('utf8');
  let stream;
  try {
    stream = createReadStream(path, { start: fromByte, highWaterMark: READ_CHUNK });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
        // A line that lies whole in this read is judged at once; one begun in an earlier read streams.
        const text = decoder.write(chunk.subarray(from, nl)) + decoder.end();
        if (lineHasText) feedLine(text);
        if (!endLine(lineHasText ? undefined : text)) return result();
        from = nl + 1;
        lineStart = readAt + from;
      }
      feedLine(decoder.write(chunk.subarray(from)));
      readAt += chunk.length;
    }
  } catch {
    return result();
  } finally {
    stream?.destroy();
  }
  const settled = result();
  feedLine(decoder.end());
  if (!lineHasText) return settled;
  // The unfinished last line: counted now, scanned again from its start next time.
  const settledLines = line;
  endLine();
  return { ...settled, matches, truncated, total, linesSearched: line - (firstLine - 1), resumeLine: settledLines + 1 };
}
