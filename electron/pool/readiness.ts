import { connect } from 'node:net';
import type { ReadyCheck } from '../../shared/schemas/task.js';
import { LineMatcher, TimedPattern } from './ready-lines.js';

export { LINE_KEPT_CHARS, PATTERN_TIME_MS } from './ready-lines.js';

/** Between probes of port and http, unless told otherwise. */
export const PROBE_INTERVAL_MS = 500;
/** How long one http request or TCP connect may take before it counts as "not yet". */
export const PROBE_TIMEOUT_MS = 2_000;

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
