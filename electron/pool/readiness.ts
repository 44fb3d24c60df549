import { connect } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { createContext, Script, type Context } from 'node:vm';
import type { ReadyCheck } from '../../shared/schemas/task.js';

/** Between probes of port and http, unless told otherwise. */
export const PROBE_INTERVAL_MS = 500;
/** How long one http request or TCP connect may take before it counts as "not yet". */
export const PROBE_TIMEOUT_MS = 2_000;
/**
 * Characters of a line kept and tested against the pattern (4 KiB of text): a longer line is
 * matched on its first this-many characters only, so a flood without line feeds costs one
 * bounded test per chunk, however long the line grows.
 */
export const LINE_KEPT_CHARS = 4_096;

export interface ReadinessTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ReadinessOptions {
  check: ReadyCheck;
  /** The ports the task's own processes listen on; null where the OS does not tell. */
  portsOf: () => number[] | null;
  /** Called once, when every condition holds. */
  onReady: () => void;
  /** True when another task of Drover listens on the port (the port index); absent: nobody is known to. */
  heldByOther?: (port: number) => boolean;
  /** Told when the check can no longer hold as declared (a pattern too slow to run), in words. */
  onProblem?: (message: string) => void;
  /** Between probes of port and http; default PROBE_INTERVAL_MS. */
  intervalMs?: number;
  /** Timers; default the globals (unref'd). Tests pass a fake so nothing sleeps for timing. */
  timers?: ReadinessTimers;
}

const GLOBAL_TIMERS: ReadinessTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Watches a running task until its declared readiness holds: every condition given, each
 * held from the moment it first holds. The pattern reads the output from construction; port
 * and http are probed from `start()` every interval, one probe (so one request) at a time.
 */
export class ReadinessWatch {
  readonly #check: ReadyCheck;
  readonly #portsOf: () => number[] | null;
  readonly #heldByOther: (port: number) => boolean;
  readonly #onReady: () => void;
  readonly #intervalMs: number;
  readonly #timers: ReadinessTimers;
  /** Ends an in-flight connect or request when the watch stops or becomes ready. */
  readonly #abort = new AbortController();
  /** Null once the pattern held (or the watch stopped): output is no longer read. */
  #lines: LineMatcher | null;
  #patternHeld: boolean;
  #portHeld: boolean;
  #httpHeld: boolean;
  #started = false;
  #stopped = false;
  #ready = false;
  #timer: unknown = null;
  #probe: Promise<void> | null = null;

  constructor(options: ReadinessOptions) {
    this.#check = options.check;
    this.#portsOf = options.portsOf;
    this.#heldByOther = options.heldByOther ?? (() => false);
    this.#onReady = options.onReady;
    this.#intervalMs = options.intervalMs ?? PROBE_INTERVAL_MS;
    this.#timers = options.timers ?? GLOBAL_TIMERS;
    this.#lines =
      options.check.pattern === undefined
        ? null
        : new LineMatcher(new TimedPattern(options.check.pattern, options.onProblem ?? (() => {})));
    this.#patternHeld = options.check.pattern === undefined;
    this.#portHeld = options.check.port === undefined;
    this.#httpHeld = options.check.http === undefined;
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** Feed every output chunk (raw bytes from the terminal). */
  output(chunk: Buffer): void {
    if (this.#stopped || this.#ready || !this.#lines) return;
    if (!this.#lines.feed(chunk)) return;
    this.#lines = null;
    this.#patternHeld = true;
    this.#settle();
  }

  /** Starts probing (port/http); pattern works from construction. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    if (this.#portHeld && this.#httpHeld) this.#settle();
    else this.#runProbe();
  }

  /** Stops every probe (task ended); no onReady after this. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#lines = null;
    this.#halt();
  }

  /** Resolves when no probe is in flight (the next, if any, waits for its timer): for tests and orderly shutdown. */
  whenIdle(): Promise<void> {
    return this.#probe ?? Promise.resolve();
  }

  /** Which conditions still wait, in words, e.g. "port 3000, http://127.0.0.1:3000/health" ('' when ready). */
  waitingFor(): string {
    if (this.#ready) return '';
    return conditionWords(this.#check, {
      port: !this.#portHeld,
      http: !this.#httpHeld,
      pattern: !this.#patternHeld,
    });
  }

  #runProbe(): void {
    this.#timer = null;
    this.#probe = this.#probeOnce().finally(() => {
      this.#probe = null;
      if (!this.#stopped && !this.#ready) {
        this.#timer = this.#timers.setTimeout(() => this.#runProbe(), this.#intervalMs);
      }
    });
  }

  async #probeOnce(): Promise<void> {
    const { port, http } = this.#check;
    if (!this.#portHeld && port !== undefined && (await this.#listens(port))) this.#portHeld = true;
    if (this.#stopped || this.#ready) return;
    if (!this.#httpHeld && http !== undefined && this.#ownsUrl(http) && (await answers(http, this.#abort.signal)))
      this.#httpHeld = true;
    if (this.#stopped || this.#ready) return;
    this.#settle();
  }

  /**
   * The URL is not asked while another of Drover's tasks listens on its port: a first copy of the
   * same dev server answering there never makes this one ready. (A port held by something that is
   * no task, such as docker's proxy, is asked: that is how a container's server becomes ready.)
   */
  #ownsUrl(url: string): boolean {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return !this.#heldByOther(port);
  }

  async #listens(port: number): Promise<boolean> {
    const ports = this.#portsOf();
    if (ports) return ports.includes(port);
    // The OS does not say whose port it is: anything accepting on this machine's loopback counts.
    return (await connects('127.0.0.1', port, this.#abort.signal)) || (await connects('::1', port, this.#abort.signal));
  }

  #settle(): void {
    if (this.#ready || this.#stopped) return;
    if (!this.#patternHeld || !this.#portHeld || !this.#httpHeld) return;
    this.#ready = true;
    this.#halt();
    this.#onReady();
  }

  #halt(): void {
    if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
    this.#timer = null;
    this.#abort.abort();
  }
}

/** The check in words for a person or the model: "port 3000, http://127.0.0.1:3000/health, output matching /Local:.*http/". */
export function describeReadyCheck(check: ReadyCheck): string {
  return conditionWords(check, { port: true, http: true, pattern: true });
}

function conditionWords(check: ReadyCheck, which: { port: boolean; http: boolean; pattern: boolean }): string {
  const words: string[] = [];
  if (which.port && check.port !== undefined) words.push(`port ${check.port}`);
  if (which.http && check.http !== undefined) words.push(shown(check.http));
  if (which.pattern && check.pattern !== undefined) words.push(`output matching /${shown(check.pattern)}/`);
  return words.join(', ');
}

/** Control, format and separator characters shown escaped, so the words never carry a live one. */
function shown(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}

/** A GET answered with a status below 500 (a redirect is an answer, not followed); refused, timed out or 5xx is "not yet". */
async function answers(url: string, stopped: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(url, {
      redirect: 'manual',
      signal: AbortSignal.any([stopped, AbortSignal.timeout(PROBE_TIMEOUT_MS)]),
    });
    // The body is never read: cancelling it frees the connection.
    await response.body?.cancel().catch(() => undefined);
    return response.status < 500;
  } catch {
    return false;
  }
}

/** A TCP connect to host:port that succeeds within the timeout. */
function connects(host: string, port: number, stopped: AbortSignal): Promise<boolean> {
  if (stopped.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (connected: boolean) => {
      stopped.removeEventListener('abort', onStop);
      socket.destroy();
      resolve(connected);
    };
    const onStop = () => done(false);
    stopped.addEventListener('abort', onStop, { once: true });
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

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
class LineMatcher {
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

/** The most one chunk's lines may take to test: longer, and the pattern is dropped. */
export const PATTERN_TIME_MS = 100;

const compilePattern = new Script('re = new RegExp(source)');
const testLines = new Script('lines.some((line) => re.test(line))');

/**
 * The model's pattern, run with a time limit. It comes from the model and runs on Drover's main
 * thread against every line a task prints; a pattern that backtracks without end on one line
 * (`(.|\s)*x`, which the schema's check lets through) would freeze the app. Each chunk's lines
 * are tested in one go, in a context the VM stops after PATTERN_TIME_MS; a pattern that takes
 * that long is dropped (it never matches) and reported.
 */
class TimedPattern {
  readonly #context: Context;
  readonly #onDropped: (message: string) => void;
  #dropped = false;

  constructor(source: string, onDropped: (message: string) => void) {
    this.#context = createContext({ source, re: null, lines: [] });
    compilePattern.runInContext(this.#context);
    this.#onDropped = onDropped;
  }

  matchesAny(lines: string[]): boolean {
    if (this.#dropped || lines.length === 0) return false;
    this.#context.lines = lines;
    try {
      return testLines.runInContext(this.#context, { timeout: PATTERN_TIME_MS }) === true;
    } catch (error) {
      this.#dropped = true;
      this.#onDropped(
        `its ready pattern took more than ${PATTERN_TIME_MS} ms on one piece of output, so it is no longer tested (${(error as Error).message})`,
      );
      return false;
    } finally {
      this.#context.lines = [];
    }
  }
}
