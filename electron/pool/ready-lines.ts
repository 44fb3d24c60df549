import { StringDecoder } from 'node:string_decoder';
import { createContext, Script, type Context } from 'node:vm';

/** Reading a task's output as lines for a readiness pattern, and running the model's pattern with a time limit. */

/**
 * Characters of a line kept and tested against the pattern (4 KiB of text): a longer line is
 * matched on its first this-many characters only, so a flood without line feeds costs one
 * bounded test per chunk, however long the line grows.
 */
export const LINE_KEPT_CHARS = 4_096;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;

/** Where the stripper stands between characters (and so between chunks). */
type EscapeState =
  | 'text'
  /** After ESC. */
  | 'escape'
  /** ESC and intermediate bytes (`ESC ( B`), until a final byte. */
  | 'intermediate'
  /** ESC [ or CSI, until a final byte. */
  | 'csi'
  /** OSC, DCS, SOS, PM or APC: a string until BEL or ST (`ESC \`). */
  | 'string'
  /** An ESC inside a string: `\` ends the string; anything else begins a new escape. */
  | 'stringEscape';

/** Printable text: not C0, DEL or C1. */
function isPrintable(code: number): boolean {
  return code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f);
}

/**
 * Output as lines a person would read (escape sequences and other control characters removed;
 * LF, CR and CR LF each end a line), matched against a pattern as it streams in. Chunks may
 * split anywhere: UTF-8 characters are decoded across them and the stripper keeps its state.
 * An escape sequence never spans a line end (a line end inside one ends it), so a stray ESC ]
 * cannot hide every later line. Only the first LINE_KEPT_CHARS of a line are kept and tested.
 */
export class LineMatcher {
  readonly #pattern: TimedPattern;
  readonly #decoder = new StringDecoder('utf8');
  #state: EscapeState = 'text';
  #line = '';
  /** The unfinished line gained text since it was last tested. */
  #untested = false;
  /** A CR ended the last line and nothing visible followed yet: the LF of a CR LF here ends nothing. */
  #afterCr = false;

  /** Lines the chunk completed, tested together once it is read. */
  #completed: string[] = [];

  constructor(pattern: TimedPattern) {
    this.#pattern = pattern;
  }

  /** True once a line (or the unfinished last one) matched. */
  feed(chunk: Buffer): boolean {
    this.#read(this.#decoder.write(chunk));
    const lines = this.#completed;
    this.#completed = [];
    // The unfinished line (a prompt printed without a line feed): at most LINE_KEPT_CHARS tested per chunk.
    if (this.#untested) lines.push(this.#line);
    this.#untested = false;
    return this.#pattern.matchesAny(lines);
  }

  #read(text: string): void {
    for (let at = 0; at < text.length; at++) {
      const code = text.charCodeAt(at);
      switch (this.#state) {
        case 'text':
          if (isPrintable(code) || code === TAB) {
            let end = at + 1;
            while (end < text.length && (isPrintable(text.charCodeAt(end)) || text.charCodeAt(end) === TAB)) end++;
            this.#append(text, at, end);
            at = end - 1;
          } else if (code === LF || code === CR) this.#endLine(code);
          else if (code === ESC) this.#state = 'escape';
          else if (code === 0x9b) this.#state = 'csi';
          else if (code === 0x90 || code === 0x98 || code === 0x9d || code === 0x9e || code === 0x9f)
            this.#state = 'string';
          // Any other control character is dropped.
          break;
        case 'escape':
          if (code === 0x5b) this.#state = 'csi';
          else if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f)
            this.#state = 'string';
          else if (code >= 0x20 && code <= 0x2f) this.#state = 'intermediate';
          else if (code >= 0x30 && code <= 0x7e) this.#state = 'text';
          else if (code !== ESC) at = this.#abandon(at);
          break;
        case 'intermediate':
          if (code >= 0x30 && code <= 0x7e) this.#state = 'text';
          else if (!(code >= 0x20 && code <= 0x2f)) at = this.#abandon(at);
          break;
        case 'csi':
          if (code >= 0x40 && code <= 0x7e) this.#state = 'text';
          else if (!(code >= 0x20 && code <= 0x3f)) at = this.#abandon(at);
          break;
        case 'string':
          if (code === 0x07 || code === 0x9c) this.#state = 'text';
          else if (code === ESC) this.#state = 'stringEscape';
          else if (code === LF || code === CR) at = this.#abandon(at);
          break;
        case 'stringEscape':
          if (code === 0x5c) this.#state = 'text';
          else {
            this.#state = 'escape';
            at--;
          }
          break;
      }
    }
  }

  /** A sequence cut short by a character that cannot continue it: the character is read again as text. */
  #abandon(at: number): number {
    this.#state = 'text';
    return at - 1;
  }

  #append(text: string, from: number, to: number): void {
    this.#afterCr = false;
    const room = LINE_KEPT_CHARS - this.#line.length;
    if (room <= 0) return;
    this.#line += text.slice(from, Math.min(to, from + room));
    this.#untested = true;
  }

  #endLine(code: number): void {
    if (this.#afterCr && this.#line === '') {
      // The LF of CR LF (or a repeated CR) ends nothing more; a later LF ends an empty line again.
      if (code === LF) this.#afterCr = false;
      return;
    }
    this.#completed.push(this.#line);
    this.#line = '';
    this.#untested = false;
    this.#afterCr = code === CR;
  }
}

/** The most one chunk's lines may take to test: longer, twice in a row, and the pattern is dropped. */
export const PATTERN_TIME_MS = 100;
/**
 * Runs a chunk's test may take before the pattern is dropped. The limit is wall-clock time, and a
 * busy machine can hold Drover's thread off its core for longer than that: one stopped run may be
 * the machine's doing, a second in a row is the pattern's.
 */
export const PATTERN_TRIES = 2;

const compilePattern = new Script('re = new RegExp(source)');
const testLines = new Script('lines.some((line) => re.test(line))');

/** Tests the context's lines against its pattern, stopped after `timeoutMs`. */
export type PatternRun = (context: Context, timeoutMs: number) => unknown;
const runTest: PatternRun = (context, timeoutMs) => testLines.runInContext(context, { timeout: timeoutMs });

/**
 * The model's pattern, run with a time limit. It comes from the model and runs on Drover's main
 * thread against every line a task prints; a pattern that backtracks without end on one line
 * (`(.|\s)*x`, which the schema's check lets through) would freeze the app. Each chunk's lines
 * are tested in one go, in a context the VM stops after PATTERN_TIME_MS; a pattern stopped
 * PATTERN_TRIES times in a row on the same lines is dropped (it never matches) and reported.
 */
export class TimedPattern {
  readonly #context: Context;
  readonly #onDropped: (message: string) => void;
  readonly #run: PatternRun;
  #dropped = false;

  /** `run` is the VM's, stopped by its timeout; tests pass one that stands in for a busy machine. */
  constructor(source: string, onDropped: (message: string) => void, run: PatternRun = runTest) {
    this.#context = createContext({ source, re: null, lines: [] });
    compilePattern.runInContext(this.#context);
    this.#onDropped = onDropped;
    this.#run = run;
  }

  matchesAny(lines: string[]): boolean {
    if (this.#dropped || lines.length === 0) return false;
    this.#context.lines = lines;
    try {
      for (let tries = 1; ; tries++) {
        try {
          return this.#run(this.#context, PATTERN_TIME_MS) === true;
        } catch (error) {
          if (tries < PATTERN_TRIES && timedOut(error)) continue;
          this.#dropped = true;
          this.#onDropped(
            `its ready pattern took more than ${PATTERN_TIME_MS} ms on one piece of output, so it is no longer tested (${(error as Error).message})`,
          );
          return false;
        }
      }
    } finally {
      this.#context.lines = [];
    }
  }
}

function timedOut(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}
