import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadShellParser } from '../../electron/permissions/shell-parser.js';
import { parseArgs, type ToolContext, type ToolOutcome } from '../../electron/agent/tools.js';
import {
  answerForModel,
  answerForPerson,
  foregroundSleepRefusal,
  foregroundSleepSeconds,
  planSleep,
  secondsUntil,
  sleepDuration,
  sleepPolicy,
  sleepTool,
} from '../../electron/agent/sleep-tool.js';
import { SettingsSchema, type SleepSettings } from '../../shared/schemas/settings.js';

/** A day with no daylight-saving change anywhere we run: local 09:00 on 15 June 2025. */
const NINE = new Date(2025, 5, 15, 9, 0, 0);
const DEFAULTS = sleepPolicy(undefined);

describe('sleep until HH:MM', () => {
  it('counts to the next occurrence in local time: later today, else tomorrow', () => {
    expect(secondsUntil('10:30', NINE)).toBe(90 * 60);
    expect(secondsUntil('9:01', NINE)).toBe(60);
    expect(secondsUntil('08:00', NINE)).toBe(23 * 3600);
    // The very minute it is now has passed: tomorrow at that time.
    expect(secondsUntil('09:00', NINE)).toBe(24 * 3600);
    // Part of a second ahead still counts as a whole second.
    expect(secondsUntil('09:00', new Date(2025, 5, 15, 8, 59, 59, 500))).toBe(1);
    expect(secondsUntil('00:00', new Date(2025, 5, 15, 23, 59, 30))).toBe(30);
  });

  it('a time past the cap sleeps the cap and asks to be called again for the rest, in seconds (a repeat of the time could mean tomorrow)', () => {
    const plan = planSleep({ until: '10:30' }, NINE, DEFAULTS);
    expect(plan).toMatchObject({ asked: 5400, seconds: 600, remaining: 4800, until: '10:30' });
    expect(answerForModel(plan, 'slept', 600)).toBe(
      'Slept 10m of 1h 30m (capped at the 10m maximum per call); 1h 20m remain: call sleep again with seconds: 4800 to go on.',
    );
  });
});

describe('the settings reshape a request and say by how much', () => {
  it('defaults: at least 5 s, at most 10 min per call', () => {
    expect(DEFAULTS).toEqual({ minSeconds: 5, maxSeconds: 600 });
  });

  it('raises a request below the minimum', () => {
    const plan = planSleep({ seconds: 2 }, NINE, DEFAULTS);
    expect(plan).toMatchObject({ asked: 2, seconds: 5, raised: true, remaining: 0 });
    expect(answerForModel(plan, 'slept', 5)).toBe('Slept 5s (raised from 2s to the 5s minimum).');
    expect(answerForPerson(plan, 'slept', 5, 'a moment')).toBe(
      'Slept 5s: a moment (raised from 2s to the 5s minimum).',
    );
  });

  it('caps a request above the maximum and names what remains', () => {
    const plan = planSleep({ seconds: 1500 }, NINE, DEFAULTS);
    expect(plan).toMatchObject({ asked: 1500, seconds: 600, raised: false, remaining: 900 });
    expect(answerForModel(plan, 'slept', 600)).toBe(
      'Slept 10m of 25m (capped at the 10m maximum per call); 15m remain: call sleep again with seconds: 900 to go on.',
    );
    expect(answerForPerson(plan, 'slept', 600, 'waiting for CI')).toBe(
      'Slept 10m of the 25m asked: waiting for CI (at most 10m per call).',
    );
  });

  it('-1 removes the cap; a request inside the bounds is left alone', () => {
    const uncapped = sleepPolicy({ maxSeconds: -1 });
    expect(planSleep({ seconds: 86_400 }, NINE, uncapped)).toMatchObject({ seconds: 86_400, remaining: 0 });
    const plan = planSleep({ seconds: 300 }, NINE, DEFAULTS);
    expect(answerForModel(plan, 'slept', 300)).toBe('Slept 5m.');
  });

  it('a minimum above the cap gives way to the cap, so a long wait still ends', () => {
    expect(sleepPolicy({ minSeconds: 900 })).toEqual({ minSeconds: 600, maxSeconds: 600 });
    expect(sleepPolicy({ minSeconds: 900, maxSeconds: -1 })).toEqual({ minSeconds: 900, maxSeconds: -1 });
  });

  it('settings.json takes the section and names a bad field', () => {
    const parse = (sleep: unknown) => SettingsSchema.safeParse({ sleep });
    expect(parse({ minSeconds: 0, maxSeconds: -1 }).success).toBe(true);
    const issue = (sleep: unknown) => parse(sleep).error?.issues[0];
    expect(issue({ maxSeconds: 0 })).toMatchObject({ path: ['sleep', 'maxSeconds'] });
    expect(issue({ maxSeconds: -2 })).toMatchObject({ path: ['sleep', 'maxSeconds'] });
    expect(issue({ minSeconds: 60, maxSeconds: 30 })).toMatchObject({
      path: ['sleep', 'minSeconds'],
      message: 'must not be above maxSeconds',
    });
    expect(issue({ nap: 1 })?.code).toBe('unrecognized_keys');
  });

  it('words durations the way the progress line does', () => {
    expect([0, 42, 90, 300, 3600, 3725, 90_061].map(sleepDuration)).toEqual([
      '0s',
      '42s',
      '1m 30s',
      '5m',
      '1h',
      '1h 2m 5s',
      '1d 1h 1m 1s',
    ]);
  });
});

describe('bad input names the field', () => {
  const tool = sleepTool(() => undefined);
  const problem = (args: Record<string, unknown>) => {
    try {
      parseArgs(tool, args);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('exactly one of seconds and until', () => {
    expect(problem({ seconds: 5, until: '10:00' })).toBe(
      'Invalid arguments for sleep: until: give seconds or until, not both',
    );
    expect(problem({})).toBe('Invalid arguments for sleep: seconds: give seconds (how long) or until (HH:MM)');
    expect(problem({ reason: 'just because' })).toMatch(/^Invalid arguments for sleep: seconds: /);
  });

  it('a time of day that is not one, a negative or fractional count, an unknown field', () => {
    expect(problem({ until: '25:00' })).toBe(
      'Invalid arguments for sleep: until: must be a time of day as HH:MM, from 00:00 to 23:59',
    );
    expect(problem({ until: '12:60' })).toMatch(/^Invalid arguments for sleep: until: /);
    expect(problem({ seconds: -5 })).toBe('Invalid arguments for sleep: seconds: must be more than 0');
    expect(problem({ seconds: 0 })).toBe('Invalid arguments for sleep: seconds: must be more than 0');
    expect(problem({ seconds: 1.5 })).toMatch(/^Invalid arguments for sleep: seconds: must be a whole number/);
    expect(problem({ seconds: 5, minutes: 1 })).toMatch(/^Invalid arguments for sleep: .*minutes/);
    expect(problem({ seconds: 5, reason: 'x'.repeat(201) })).toMatch(/^Invalid arguments for sleep: reason: /);
    expect(problem({ until: '7:05', reason: 'standup' })).toBeNull();
  });
});

describe('the sleep tool on a fake clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function context() {
    const stop = new AbortController();
    const message = new AbortController();
    const lines: string[] = [];
    let yielded = false;
    const value: ToolContext = {
      sessionId: 's1',
      cwd: '/',
      signal: stop.signal,
      permit: () => Promise.reject(new Error('sleep asks for no permission')),
      progress: (text) => lines.push(text),
      personMessage: { signal: message.signal, yieldTurn: () => (yielded = true) },
    };
    return { value, stop, message, lines, yielded: () => yielded };
  }

  const run = (settings: SleepSettings | undefined, args: Record<string, unknown>, ctx: ToolContext) => {
    const tool = sleepTool(() => settings);
    return tool.execute(parseArgs(tool, args) as never, ctx);
  };

  it('shows its progress every second and sleeps the whole time', async () => {
    vi.useFakeTimers();
    const ctx = context();
    let answer: ToolOutcome | null = null;
    void run(undefined, { seconds: 90, reason: 'waiting for CI' }, ctx.value).then((value) => (answer = value));
    await vi.advanceTimersByTimeAsync(3000);
    expect(ctx.lines).toEqual([
      'Sleeping 0s of 1m 30s: waiting for CI',
      'Sleeping 1s of 1m 30s: waiting for CI',
      'Sleeping 2s of 1m 30s: waiting for CI',
      'Sleeping 3s of 1m 30s: waiting for CI',
    ]);
    expect(answer).toBeNull();
    await vi.advanceTimersByTimeAsync(87_000);
    expect(answer).toEqual({
      text: 'Slept 1m 30s.',
      display: { kind: 'text', text: 'Slept 1m 30s: waiting for CI.' },
    });
    expect(ctx.yielded()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a message from the person wakes it at once and yields the turn to the person's message", async () => {
    vi.useFakeTimers();
    const ctx = context();
    const answer = run(undefined, { seconds: 300 }, ctx.value);
    await vi.advanceTimersByTimeAsync(42_000);
    ctx.message.abort();
    expect((await answer).text).toBe(
      'Interrupted by a message from the person after 42s of 5m. Their message follows: read it and answer it before you wait again.',
    );
    expect((await answer).display).toEqual({ kind: 'text', text: 'Woke after 42s of 5m: you sent a message.' });
    expect(ctx.yielded()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    // A message that came earlier in the turn: a later sleep does not start at all.
    expect((await run(undefined, { seconds: 300 }, ctx.value)).text).toMatch(/^Interrupted .* after 0s of 5m/);
  });

  it('Stop ends it at once', async () => {
    vi.useFakeTimers();
    const ctx = context();
    const answer = run(undefined, { seconds: 300 }, ctx.value);
    await vi.advanceTimersByTimeAsync(12_000);
    ctx.stop.abort();
    expect(await answer).toMatchObject({
      text: 'Stopped by the person after 12s of 5m.',
      display: { kind: 'text', text: 'Stopped after 12s of 5m.' },
    });
    expect(ctx.yielded()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('two sleeps side by side keep their own time; waking one leaves the other asleep', async () => {
    vi.useFakeTimers();
    const [a, b] = [context(), context()];
    let second: ToolOutcome | null = null;
    const first = run({ minSeconds: 1 }, { seconds: 10 }, a.value);
    void run({ minSeconds: 1 }, { seconds: 20 }, b.value).then((value) => (second = value));
    await vi.advanceTimersByTimeAsync(4000);
    a.message.abort();
    expect((await first).text).toMatch(/^Interrupted .* after 4s of 10s/);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(second).toBeNull();
    expect(b.lines.at(-1)).toBe('Sleeping 14s of 20s');
    await vi.advanceTimersByTimeAsync(6000);
    expect(second!.text).toBe('Slept 20s.');
  });
});

describe('a foreground shell sleep', () => {
  beforeAll(async () => {
    await loadShellParser();
  });

  it('is read from any command a line waits for in the foreground, with GNU units', () => {
    const cases: [string, number | null][] = [
      ['sleep 5', 5],
      ['sleep 5 && make test', 5],
      ['sleep 5; make test', 5],
      ['sleep 5 || true', 5],
      ['(sleep 5; make test)', 5],
      ['{ sleep 5; make test; }', 5],
      ['X=1 /bin/sleep "3" > /dev/null', 3],
      ['sleep 1m 2s', 62],
      ['sleep 0.5', 0.5],
      ['sleep infinity', Infinity],
      ['# wait first\nsleep 4', 4],
      // Anywhere the line waits for it.
      ['sleep 5 | cat', 5],
      ['make; sleep 5', 5],
      ['cd src && sleep 30', 30],
      ['true; sleep 600; echo done', 600],
      ['sleep 1; sleep 7', 7],
      // Sent to the background: the line does not wait for it.
      ['sleep 5 &', null],
      ['sleep 5 & echo started', null],
      ['sleep 5 && make test &', null],
      // Not known here: left to run.
      ['sleep $DELAY', null],
      ['sleep', null],
      ['sleep --help', null],
      ['sleepy 5', null],
    ];
    expect(cases.map(([command]) => [command, foregroundSleepSeconds(command)])).toEqual(cases);
  });

  it('of 2 s or more is refused with a pointer to the sleep tool; a shorter one runs', () => {
    expect(foregroundSleepRefusal('sleep 1')).toBeNull();
    expect(foregroundSleepRefusal('sleep 1.9; echo x')).toBeNull();
    const refused = foregroundSleepRefusal('sleep 2.5 && curl localhost:3000')!;
    expect(refused.failed).toBe(true);
    expect(refused.text).toContain('call sleep with seconds: 3 and a short reason');
    expect(refused.display).toMatchObject({ kind: 'not_run', rejected: false });
    expect(foregroundSleepRefusal('sleep infinity')!.text).toContain('call sleep with seconds or until');
  });
});
