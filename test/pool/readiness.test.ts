import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { once } from 'node:events';
import { Script, type Context, type RunningScriptOptions } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReadyCheck } from '../../shared/schemas/task.js';
import {
  describeReadyCheck,
  LINE_KEPT_CHARS,
  PATTERN_TIME_MS,
  ReadinessWatch,
  type ReadinessTimers,
} from '../../electron/pool/readiness.js';
import { PATTERN_TRIES, TimedPattern, type PatternRun } from '../../electron/pool/ready-lines.js';

/** Timers that run only when told: a probe's next round happens at `fire()`, never after a sleep. */
class FakeTimers implements ReadinessTimers {
  readonly pending = new Map<number, () => void>();
  #next = 1;

  setTimeout(fn: () => void): unknown {
    const id = this.#next++;
    this.pending.set(id, fn);
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Runs every timer now due (the next probe). */
  fire(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const fn of due) fn();
  }
}

function watchFor(
  check: ReadyCheck,
  portsOf: () => number[] | null = () => null,
  onProblem: (message: string) => void = () => {},
) {
  const timers = new FakeTimers();
  let readyCalls = 0;
  const watch = new ReadinessWatch({ check, portsOf, timers, onReady: () => readyCalls++, onProblem });
  watches.push(watch);
  return { watch, timers, readyCalls: () => readyCalls };
}

/** Feeds the text's bytes in pieces of `size` bytes, splitting characters and escapes wherever they fall. */
function feedInPieces(watch: ReadinessWatch, text: string, size: number): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += size) watch.output(bytes.subarray(at, at + size));
}

const watches: ReadinessWatch[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const watch of watches.splice(0)) {
    watch.stop();
    await watch.whenIdle();
  }
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(server: Server, port = 0, host = '127.0.0.1'): Promise<number> {
  servers.push(server);
  server.listen(port, host);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** A loopback port nothing listens on (it was just released). */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function httpServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Server {
  return createHttpServer(handler) as unknown as Server;
}

/** What Vite prints, colours, a window title and a hyperlink included. */
const VITE_LINE =
  '\x1b[2K\x1b[1G\x1b]0;vite\x07  \x1b[32m➜\x1b[39m  \x1b[1mLocal\x1b[22m:   ' +
  '\x1b]8;;http://localhost:5173/\x1b\\http://localhost:5173/\x1b]8;;\x1b\\\n';
const VITE_PATTERN = '^  ➜  Local:   http://localhost:5173/$';

describe('readiness by output pattern', () => {
  it('matches a line split at every byte: mid-line, mid-UTF-8 character and mid-escape sequence', () => {
    const bytes = Buffer.from(VITE_LINE, 'utf8');
    for (let split = 0; split <= bytes.length; split++) {
      const { watch, readyCalls } = watchFor({ pattern: VITE_PATTERN });
      watch.output(bytes.subarray(0, split));
      watch.output(bytes.subarray(split));
      expect(watch.ready, `split at byte ${split}`).toBe(true);
      expect(readyCalls()).toBe(1);
    }
    const { watch } = watchFor({ pattern: VITE_PATTERN });
    feedInPieces(watch, VITE_LINE, 1);
    expect(watch.ready).toBe(true);
  });

  it('decodes a character whose bytes arrive in different chunks', () => {
    const { watch } = watchFor({ pattern: '^café ready$' });
    const bytes = Buffer.from('café ready\n', 'utf8');
    const cut = bytes.indexOf(0xc3) + 1;
    watch.output(bytes.subarray(0, cut));
    expect(watch.ready).toBe(false);
    watch.output(bytes.subarray(cut));
    expect(watch.ready).toBe(true);
  });

  it('removes escapes split across chunks, so text on both sides joins', () => {
    const { watch } = watchFor({ pattern: '^Ready on 3000$' });
    watch.output(Buffer.from('Rea\x1b['));
    watch.output(Buffer.from('1;3'));
    watch.output(Buffer.from('2mdy on \x1b]0;t'));
    watch.output(Buffer.from('itle\x1b'));
    watch.output(Buffer.from('\\3\x1b('));
    watch.output(Buffer.from('B0\x1b'));
    watch.output(Buffer.from('700\x07\n'));
    expect(watch.ready).toBe(true);
  });

  it('never matches what lies inside an escape sequence', () => {
    const { watch } = watchFor({ pattern: 'Listening' });
    feedInPieces(watch, '\x1b]0;Listening on 3000\x07starting\n\x1b]2;Listening\x1b\\\n\x1bP+qListening\x1b\\\n', 3);
    expect(watch.ready).toBe(false);
    expect(watch.waitingFor()).toBe('output matching /Listening/');
  });

  it('ends an unterminated sequence at the line end, so later lines still match', () => {
    const { watch } = watchFor({ pattern: '^Ready$' });
    watch.output(Buffer.from('\x1b]0;a title that never ends\n'));
    expect(watch.ready).toBe(false);
    watch.output(Buffer.from('Ready\n'));
    expect(watch.ready).toBe(true);
  });

  it('tests the unfinished last line: a prompt printed without a line feed', () => {
    const { watch } = watchFor({ pattern: 'Local:.*http' });
    watch.output(Buffer.from('  VITE v5 ready in 300 ms\n\n  ➜  Local:  '));
    expect(watch.ready).toBe(false);
    watch.output(Buffer.from(' http://localhost:5173/'));
    expect(watch.ready).toBe(true);
  });

  it('ends a line at a carriage return (redraws are separate lines), and CR LF ends only one', () => {
    const split = watchFor({ pattern: '10%.*100%' });
    split.watch.output(Buffer.from('building 10%\rbuilding 100%\r\n'));
    expect(split.watch.ready).toBe(false);

    const last = watchFor({ pattern: '^building 100%$' });
    last.watch.output(Buffer.from('building 10%\rbuilding 100%\r\n'));
    expect(last.watch.ready).toBe(true);

    // CR LF is one line end: no empty line between the two lines.
    const crlf = watchFor({ pattern: '^$' });
    crlf.watch.output(Buffer.from('one\r'));
    crlf.watch.output(Buffer.from('\ntwo\r\n'));
    expect(crlf.watch.ready).toBe(false);
    crlf.watch.output(Buffer.from('\n'));
    expect(crlf.watch.ready).toBe(true);
  });

  it('keeps only the first LINE_KEPT_CHARS of a line: a 1 MB line without a line feed costs bounded work', () => {
    // The bound: of a line that never ends, only its first 4 KiB (LINE_KEPT_CHARS) of text is
    // kept, and at most that much is tested per chunk; once the kept part is full and tested it is
    // not tested again. So a match that starts beyond the kept part is never found, and the work
    // per chunk does not grow with the line. The lines handed to the pattern (one VM run per chunk,
    // so a pattern that backtracks without end can be stopped) are read off each run to prove it.
    const pattern = 'READY';
    const { watch } = watchFor({ pattern });
    const original = Script.prototype.runInContext;
    const runs: string[][] = [];
    const run = vi.spyOn(Script.prototype, 'runInContext').mockImplementation(function (
      this: Script,
      context: Context,
      options?: RunningScriptOptions,
    ) {
      if (Array.isArray(context.lines)) runs.push([...(context.lines as string[])]);
      return original.call(this, context, options);
    });
    try {
      const piece = 64 * 1024;
      const line = 'x'.repeat(1024 * 1024) + pattern;
      let chunks = 0;
      for (let at = 0; at < line.length; at += piece) {
        watch.output(Buffer.from(line.slice(at, at + piece)));
        chunks++;
      }
      expect(watch.ready).toBe(false);
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.length).toBeLessThanOrEqual(chunks);
      for (const lines of runs) for (const text of lines) expect(text.length).toBeLessThanOrEqual(LINE_KEPT_CHARS);
    } finally {
      run.mockRestore();
    }
    // Still correct after it: the next line is read whole.
    watch.output(Buffer.from('\nREADY\n'));
    expect(watch.ready).toBe(true);
  });

  it('finds a match in the kept start of a very long line', () => {
    const { watch } = watchFor({ pattern: '^Local: http' });
    watch.output(Buffer.from('Local: http' + 'x'.repeat(1024 * 1024)));
    expect(watch.ready).toBe(true);
  });
});

describe('a pattern that backtracks without end', () => {
  it('is stopped after PATTERN_TIME_MS, dropped (never matches, reported once), and the app goes on', () => {
    const problems: string[] = [];
    const { watch } = watchFor({ pattern: '(.|\\s)*Server ready' }, undefined, (message) => problems.push(message));
    // Forty spaces: hours of backtracking for an unbounded engine, so without the limit this never returns.
    watch.output(Buffer.from(`x${' '.repeat(40)}y\n`));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`ready pattern took more than ${PATTERN_TIME_MS} ms`);
    watch.output(Buffer.from('Server ready\n'));
    expect(watch.ready).toBe(false);
    expect(problems).toHaveLength(1);
  });

  it('gives a pattern stopped once (a busy machine can hold the thread off its core) a second run before dropping it', () => {
    const timeout = () =>
      Object.assign(new Error('Script execution timed out after 100ms'), { code: 'ERR_SCRIPT_EXECUTION_TIMEOUT' });
    const problems: string[] = [];
    let runs = 0;
    const stoppedOnce: PatternRun = (context, timeoutMs) => {
      runs++;
      if (runs === 1) throw timeout();
      return new Script('lines.some((line) => re.test(line))').runInContext(context, { timeout: timeoutMs });
    };
    const pattern = new TimedPattern('^ready$', (message) => problems.push(message), stoppedOnce);
    expect(pattern.matchesAny(['ready'])).toBe(true);
    expect([runs, problems]).toEqual([2, []]);
    // Stopped again on the next chunk, once: still a second run, and the pattern stays.
    runs = 0;
    expect(pattern.matchesAny(['not yet'])).toBe(false);
    expect(pattern.matchesAny(['ready'])).toBe(true);
    expect(problems).toEqual([]);

    let stoppedRuns = 0;
    const alwaysStopped = new TimedPattern(
      '^ready$',
      (message) => problems.push(message),
      () => {
        stoppedRuns++;
        throw timeout();
      },
    );
    expect(alwaysStopped.matchesAny(['ready'])).toBe(false);
    expect([stoppedRuns, problems.length]).toEqual([PATTERN_TRIES, 1]);
    expect(alwaysStopped.matchesAny(['ready'])).toBe(false);
    expect([stoppedRuns, problems.length]).toEqual([PATTERN_TRIES, 1]);

    // Any other failure is not the machine's: dropped at once.
    let failedRuns = 0;
    const failing = new TimedPattern(
      '^ready$',
      (message) => problems.push(message),
      () => {
        failedRuns++;
        throw new RangeError('Maximum call stack size exceeded');
      },
    );
    expect(failing.matchesAny(['ready'])).toBe(false);
    expect([failedRuns, problems.length]).toEqual([1, 2]);
  });
});

describe('readiness by port', () => {
  it('holds when the port index lists the port among the task’s own', async () => {
    let ports: number[] = [];
    const { watch, timers, readyCalls } = watchFor({ port: 4321 }, () => ports);
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);
    expect(watch.waitingFor()).toBe('port 4321');
    expect(timers.pending.size).toBe(1);

    ports = [80, 4321];
    timers.fire();
    await watch.whenIdle();
    expect(watch.ready).toBe(true);
    expect(readyCalls()).toBe(1);
    expect(watch.waitingFor()).toBe('');
    expect(timers.pending.size).toBe(0);
  });

  it('does not count a port someone else listens on when the index can tell', async () => {
    const port = await listen(createTcpServer());
    const { watch } = watchFor({ port }, () => []);
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);
  });

  it('falls back to a TCP connect on 127.0.0.1 where the OS does not tell (portsOf null)', async () => {
    const port = await closedPort();
    const { watch, timers, readyCalls } = watchFor({ port }, () => null);
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);

    await listen(createTcpServer(), port);
    timers.fire();
    await watch.whenIdle();
    expect(watch.ready).toBe(true);
    expect(readyCalls()).toBe(1);
  });

  it('tries ::1 after 127.0.0.1', async () => {
    const port = await closedPort();
    const { watch } = watchFor({ port }, () => null);
    const server = createTcpServer();
    let ipv6 = true;
    try {
      await listen(server, port, '::1');
    } catch {
      // No IPv6 loopback here: the connect to ::1 then fails, and the probe must still answer "not yet".
      ipv6 = false;
    }
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(ipv6);
  });
});

describe('readiness by http', () => {
  it('does not ask the URL while another task of Drover listens on its port', async () => {
    const seen: string[] = [];
    const port = await listen(
      httpServer((request, response) => {
        seen.push(`${request.method} ${request.url}`);
        response.end('ok');
      }),
    );
    // A first copy of the same dev server holds the port: this task is not ready because it answers.
    let other = true;
    const timers = new FakeTimers();
    const watch = new ReadinessWatch({
      check: { http: `http://127.0.0.1:${port}/` },
      portsOf: () => [],
      heldByOther: (asked) => asked === port && other,
      timers,
      onReady: () => {},
    });
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);
    expect(seen).toEqual([]);
    other = false;
    timers.fire();
    await watch.whenIdle();
    expect(watch.ready).toBe(true);
    expect(seen).toEqual(['GET /']);
  });

  it('holds once a GET answers 200', async () => {
    const seen: string[] = [];
    const port = await listen(
      httpServer((request, response) => {
        seen.push(`${request.method} ${request.url}`);
        response.end('ok');
      }),
    );
    const url = `http://127.0.0.1:${port}/health`;
    const { watch, readyCalls } = watchFor({ http: url });
    expect(watch.waitingFor()).toBe(url);
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(true);
    expect(readyCalls()).toBe(1);
    expect(seen).toEqual(['GET /health']);
  });

  it('waits through a 503 and holds at the next 200', async () => {
    let status = 503;
    const port = await listen(
      httpServer((_, response) => {
        response.statusCode = status;
        response.end();
      }),
    );
    const url = `http://127.0.0.1:${port}/`;
    const { watch, timers } = watchFor({ http: url });
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);
    expect(watch.waitingFor()).toBe(url);
    expect(timers.pending.size).toBe(1);

    status = 200;
    timers.fire();
    await watch.whenIdle();
    expect(watch.ready).toBe(true);
  });

  it('counts a refused connection as not yet, and keeps probing', async () => {
    const port = await closedPort();
    const { watch, timers } = watchFor({ http: `http://127.0.0.1:${port}/` });
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);
    expect(timers.pending.size).toBe(1);
    timers.fire();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);
  });

  it('takes a redirect as an answer without following it', async () => {
    const seen: string[] = [];
    const port = await listen(
      httpServer((request, response) => {
        seen.push(request.url ?? '');
        if (request.url === '/') response.writeHead(302, { location: '/broken' });
        else response.statusCode = 500;
        response.end();
      }),
    );
    const { watch } = watchFor({ http: `http://127.0.0.1:${port}/` });
    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(true);
    expect(seen).toEqual(['/']);
  });

  it('has one request in flight at most, and stop() ends it without onReady', async () => {
    const held: ServerResponse[] = [];
    const server = httpServer((_, response) => held.push(response));
    const port = await listen(server);
    const { watch, timers, readyCalls } = watchFor({ http: `http://127.0.0.1:${port}/` });
    watch.start();
    const [request] = (await once(server, 'request')) as [IncomingMessage];
    // While the request waits, no next probe is scheduled.
    expect(timers.pending.size).toBe(0);
    timers.fire();
    expect(held).toHaveLength(1);

    const closed = once(request.socket, 'close');
    watch.stop();
    await watch.whenIdle();
    await closed;
    held[0]!.end();
    expect(watch.ready).toBe(false);
    expect(readyCalls()).toBe(0);
    expect(timers.pending.size).toBe(0);
  });
});

describe('readiness of several conditions', () => {
  it('is ready only when every condition holds, each at its own moment', async () => {
    let ports: number[] = [];
    const { watch, timers, readyCalls } = watchFor({ pattern: 'compiled', port: 3000 }, () => ports);
    watch.output(Buffer.from('compiled successfully\n'));
    expect(watch.ready).toBe(false);
    expect(watch.waitingFor()).toBe('port 3000');

    watch.start();
    await watch.whenIdle();
    expect(watch.ready).toBe(false);

    ports = [3000];
    timers.fire();
    await watch.whenIdle();
    expect(watch.ready).toBe(true);
    expect(readyCalls()).toBe(1);
  });

  it('keeps a condition held once it held (the port may close again)', async () => {
    let ports = [3000];
    const { watch, readyCalls } = watchFor({ pattern: 'compiled', port: 3000 }, () => ports);
    watch.start();
    await watch.whenIdle();
    expect(watch.waitingFor()).toBe('output matching /compiled/');
    ports = [];
    watch.output(Buffer.from('compiled\n'));
    expect(watch.ready).toBe(true);
    expect(readyCalls()).toBe(1);
  });

  it('calls onReady exactly once, however often the conditions hold again', async () => {
    const port = await listen(httpServer((_, response) => response.end()));
    const { watch, timers, readyCalls } = watchFor(
      { pattern: 'ready', port, http: `http://127.0.0.1:${port}/` },
      () => [port],
    );
    watch.start();
    await watch.whenIdle();
    expect(watch.waitingFor()).toBe('output matching /ready/');
    watch.output(Buffer.from('ready\nready\nready'));
    watch.output(Buffer.from('ready\n'));
    timers.fire();
    await watch.whenIdle();
    watch.stop();
    expect(watch.ready).toBe(true);
    expect(readyCalls()).toBe(1);
    expect(timers.pending.size).toBe(0);
  });

  it('stop() prevents onReady, for output and for probes', async () => {
    const byOutput = watchFor({ pattern: 'ready' });
    byOutput.watch.stop();
    byOutput.watch.stop();
    byOutput.watch.output(Buffer.from('ready\n'));
    expect(byOutput.watch.ready).toBe(false);
    expect(byOutput.readyCalls()).toBe(0);

    let ports: number[] = [];
    const byPort = watchFor({ port: 3000 }, () => ports);
    byPort.watch.start();
    await byPort.watch.whenIdle();
    byPort.watch.stop();
    expect(byPort.timers.pending.size).toBe(0);
    ports = [3000];
    byPort.watch.start();
    await byPort.watch.whenIdle();
    expect(byPort.watch.ready).toBe(false);
    expect(byPort.readyCalls()).toBe(0);
  });

  it('does not probe before start()', async () => {
    const { watch, timers } = watchFor({ port: 3000 }, () => [3000]);
    await watch.whenIdle();
    expect(watch.ready).toBe(false);
    expect(timers.pending.size).toBe(0);
  });
});

describe('the check in words', () => {
  it('names every condition in order', () => {
    expect(describeReadyCheck({ port: 3000, http: 'http://127.0.0.1:3000/health', pattern: 'Local:.*http' })).toBe(
      'port 3000, http://127.0.0.1:3000/health, output matching /Local:.*http/',
    );
    expect(describeReadyCheck({ pattern: 'ready' })).toBe('output matching /ready/');
  });

  it('shows control and bidi characters escaped, never live', () => {
    expect(describeReadyCheck({ pattern: 'a\x1b[31m\u202eb' })).toBe('output matching /a\\u{1b}[31m\\u{202e}b/');
  });
});
