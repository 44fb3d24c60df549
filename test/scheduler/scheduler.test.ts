import { afterEach, describe, expect, it } from 'vitest';
import {
  LOOP_SAFETY_CHECK_MS,
  MAX_SCHEDULES_PER_SESSION,
  RECURRING_LIFETIME_MS,
} from '../../shared/schemas/schedule.js';
import { Scheduler, type ScheduledRun } from '../../electron/scheduler/scheduler.js';
import { ScheduleStore } from '../../electron/scheduler/schedule-store.js';
import { lateOffsetMs, MAX_EARLY_MS, MAX_LATE_MS } from '../../electron/scheduler/timing.js';
import { tempDir } from '../helpers.js';
import { schedulerDeps } from './scheduler-deps.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.parse('2026-06-10T10:07:00Z');

const open: ScheduleStore[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

/**
 * A scheduler on a clock the test moves: no real waiting. Runs are recorded and end when the
 * test says (or at once with `autoFinish`); sessions are busy when the test says.
 */
function harness(
  options: {
    dir?: string;
    now?: number;
    resume?: boolean;
    holder?: string;
    autoFinish?: boolean;
    allowed?: (sessionId: string) => boolean;
  } = {},
) {
  const dir = options.dir ?? tempDir();
  const store = ScheduleStore.open(dir);
  open.push(store);
  const clock = { time: options.now ?? START };
  const runs: (ScheduledRun & { at: number })[] = [];
  const finishers: (() => void)[] = [];
  const busy = new Set<string>();
  const sessions = new Set(['s1', 's2']);
  const notes: string[] = [];
  const scheduler = new Scheduler({
    store,
    clock: { now: () => clock.time },
    holder: options.holder ?? 'me',
    idle: (sessionId) => !busy.has(sessionId),
    ...(options.allowed ? { allowed: options.allowed } : {}),
    sessionExists: (sessionId) => sessions.has(sessionId),
    run: (run) => {
      runs.push({ ...run, at: clock.time });
      if (options.autoFinish !== false) return Promise.resolve();
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
    defaultTask: () => 'DEFAULT TASK',
    sessionForJob: () => 's2',
    changed: () => {},
    resumeWithoutAsking: () => options.resume ?? true,
    note: (_sessionId, text) => notes.push(text),
    timeZone: 'UTC',
  });
  /** Moves the clock in steps (a tick at each), as the timer would. */
  const advance = async (ms: number, step = MINUTE) => {
    const end = clock.time + ms;
    while (clock.time < end) {
      clock.time = Math.min(end, clock.time + step);
      await scheduler.tick();
    }
  };
  const finishAll = async () => {
    for (const finish of finishers.splice(0)) finish();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { dir, store, scheduler, clock, runs, busy, sessions, notes, advance, finishAll };
}

const at = (iso: string) => Date.parse(iso);

describe('the scheduler on a controllable clock', () => {
  it('runs a one-shot once at its time, then deletes it', async () => {
    const { scheduler, store, runs, advance, clock } = harness();
    const made = scheduler.create('s1', {
      cron: '15 12 * * *',
      prompt: 'check mail',
      recurring: false,
      durable: false,
    });
    expect(made.nextFireAt).toBe(at('2026-06-10T12:15:00Z'));
    await advance(at('2026-06-10T12:14:00Z') - clock.time);
    expect(runs).toEqual([]);
    await advance(2 * MINUTE);
    expect(runs).toEqual([expect.objectContaining({ sessionId: 's1', scheduleId: made.id, text: 'check mail' })]);
    expect(runs[0]!.at).toBe(at('2026-06-10T12:15:00Z'));
    expect(store.get(made.id)).toBeUndefined();
    await advance(2 * 24 * HOUR, HOUR);
    expect(runs).toHaveLength(1);
  });

  it('runs a one-shot set for :00 or :30 up to 90 s early, the same for an id every time; other minutes exactly', () => {
    const { scheduler } = harness();
    const offsets = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const made = scheduler.create('s2', { cron: '30 12 * * *', prompt: 'x', recurring: false, durable: false });
      const early = at('2026-06-10T12:30:00Z') - made.nextFireAt!;
      expect(early).toBeGreaterThanOrEqual(0);
      expect(early).toBeLessThan(MAX_EARLY_MS);
      expect(made.jitterMs).toBe(-early);
      offsets.add(early);
      scheduler.delete(made.id);
    }
    expect(offsets.size).toBeGreaterThan(10);
    const exact = scheduler.create('s1', { cron: '31 12 * * *', prompt: 'x', recurring: false, durable: false });
    expect(exact.nextFireAt).toBe(at('2026-06-10T12:31:00Z'));
  });

  it('ends a recurring schedule seven days after it was made, with one final run at the expiry', async () => {
    const { scheduler, store, runs, advance } = harness();
    const made = scheduler.create('s1', { cron: '0 * * * *', prompt: 'hourly', recurring: true, durable: false });
    expect(made.expiresAt).toBe(START + RECURRING_LIFETIME_MS);
    await advance(RECURRING_LIFETIME_MS + 3 * HOUR);
    // 11:00 on the 10th to 10:00 on the 17th: 168 runs, each a few minutes late; then the final one at 10:07.
    expect(runs).toHaveLength(169);
    expect(runs.at(-1)!.at).toBe(START + RECURRING_LIFETIME_MS);
    // Looked at once a minute here: each run lands at the first look at or after its time.
    const lastHourly = at('2026-06-17T10:00:00Z') + made.jitterMs;
    expect(runs.at(-2)!.at).toBeGreaterThanOrEqual(lastHourly);
    expect(runs.at(-2)!.at).toBeLessThan(lastHourly + MINUTE);
    expect(store.get(made.id)).toBeUndefined();
  });

  it('never catches up: a session busy for an hour gets one run when it is free, then the next on time', async () => {
    const { scheduler, store, runs, busy, advance } = harness();
    const made = scheduler.create('s1', { cron: '*/5 * * * *', prompt: 'poll', recurring: true, durable: false });
    busy.add('s1');
    await advance(HOUR, 10_000);
    expect(runs).toEqual([]);
    busy.delete('s1');
    await advance(1000, 1000);
    expect(runs).toHaveLength(1);
    // The next run is the next five-minute mark after now, not one of the twelve that were missed.
    const next = store.get(made.id)!.nextFireAt!;
    expect(next - made.jitterMs).toBe(at('2026-06-10T11:10:00Z'));
    await advance(4 * MINUTE, 10_000);
    expect(runs).toHaveLength(2);
  });

  it('keeps a due run waiting while a turn runs, and submits it at the first look after', async () => {
    const { scheduler, runs, busy, advance, clock } = harness();
    scheduler.create('s1', { cron: '10 10 * * *', prompt: 'once', recurring: false, durable: false });
    busy.add('s1');
    await advance(10 * MINUTE, 1000);
    expect(runs).toEqual([]);
    busy.delete('s1');
    await advance(1000, 1000);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.at).toBe(clock.time);
  });

  it('gives each recurring schedule a late offset from its id: at most a tenth of the interval and 15 minutes, kept over a restart', () => {
    const first = harness({ resume: true });
    const made = first.scheduler.create('s1', { cron: '0 */2 * * *', prompt: 'x', recurring: true, durable: false });
    expect(made.jitterMs).toBe(lateOffsetMs(made.id, 2 * HOUR));
    expect(made.jitterMs).toBeLessThan(12 * MINUTE);
    first.store.close();
    open.length = 0;
    const again = harness({ dir: first.dir, resume: true });
    again.scheduler.start();
    again.scheduler.stop();
    expect(again.store.get(made.id)!.nextFireAt).toBe(made.nextFireAt);
    const spread = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const id = Math.random().toString(36).slice(2, 10);
      expect(lateOffsetMs(id, 24 * HOUR)).toBe(lateOffsetMs(id, 24 * HOUR));
      expect(lateOffsetMs(id, 24 * HOUR)).toBeLessThan(MAX_LATE_MS);
      expect(lateOffsetMs(id, 10 * MINUTE)).toBeLessThan(MINUTE);
      spread.add(lateOffsetMs(id, 24 * HOUR));
    }
    expect(spread.size).toBeGreaterThan(150);
  });

  it('runs a fixed /loop at once, then on its clean cron step; says how an odd interval was normalised', async () => {
    const { scheduler, store, runs, advance } = harness();
    const { schedule, confirmation } = scheduler.startLoop('s1', '7m check the deploy');
    expect(schedule).toMatchObject({ kind: 'loop', cron: '*/6 * * * *', prompt: 'check the deploy' });
    expect(confirmation).toMatch(/every 6 minutes/);
    expect(confirmation).toMatch(/7 minutes does not divide an hour evenly/);
    expect(confirmation).toMatch(/first pass runs now/);
    await scheduler.tick();
    expect(runs).toHaveLength(1);
    expect(store.get(schedule.id)!.nextFireAt! - schedule.jitterMs).toBe(at('2026-06-10T10:12:00Z'));
    await advance(6 * MINUTE, 1000);
    expect(runs).toHaveLength(2);
    expect(runs.every((run) => run.text === 'check the deploy' && run.kind === 'loop')).toBe(true);
  });

  it('a bare /loop runs the default task, read at each run', async () => {
    const { scheduler, runs } = harness();
    scheduler.startLoop('s1', '10m');
    await scheduler.tick();
    expect(runs[0]).toMatchObject({ text: 'DEFAULT TASK', kind: 'loop', label: 'every 10 minutes' });
  });

  it('a self-paced loop: each pass picks the next check, which replaces the pending one; a new loop replaces the old', async () => {
    const { scheduler, store, runs, advance, finishAll, clock } = harness({ autoFinish: false });
    const { schedule } = scheduler.startLoop('s1', 'watch CI');
    expect(schedule).toMatchObject({ kind: 'self_paced', cron: null, jitterMs: 0 });
    await scheduler.tick();
    expect(runs).toHaveLength(1);
    expect(store.get(schedule.id)!.nextFireAt).toBeNull();
    scheduler.loopNext('s1', 600, 'CI takes ten minutes');
    const replaced = scheduler.loopNext('s1', 120, 'on second thought, two');
    expect(replaced.schedule!.nextFireAt).toBe(clock.time + 120_000);
    await finishAll();
    expect(store.get(schedule.id)).toMatchObject({
      nextFireAt: clock.time + 120_000,
      nextReason: 'on second thought, two',
    });
    await advance(2 * MINUTE, 1000);
    expect(runs).toHaveLength(2);

    const second = scheduler.startLoop('s1', 'watch the deploy');
    expect(second.confirmation).toMatch(new RegExp(`replaces the self-paced loop ${schedule.id}`));
    expect(store.get(schedule.id)).toBeUndefined();
    expect(scheduler.list('s1').filter((item) => item.kind === 'self_paced')).toHaveLength(1);
  });

  it('a pass that neither picks a next check nor stops gets one 20-minute safety check; a second such pass ends the loop', async () => {
    const { scheduler, store, runs, advance, finishAll, notes, clock } = harness({ autoFinish: false });
    const { schedule } = scheduler.startLoop('s1', 'tend the PR');
    await scheduler.tick();
    await finishAll();
    expect(store.get(schedule.id)).toMatchObject({ nextFireAt: clock.time + LOOP_SAFETY_CHECK_MS, safetyCheck: true });
    expect(notes.at(-1)).toMatch(/one safety check runs in 20 minutes/);
    await advance(LOOP_SAFETY_CHECK_MS - MINUTE);
    expect(runs).toHaveLength(1);
    await advance(MINUTE);
    expect(runs).toHaveLength(2);
    await finishAll();
    expect(store.get(schedule.id)).toBeUndefined();
    expect(notes.at(-1)).toMatch(/ended: two passes in a row chose no next check/);
  });

  it('the safety check resets once a pass picks its next check', async () => {
    const { scheduler, store, advance, finishAll } = harness({ autoFinish: false });
    const { schedule } = scheduler.startLoop('s1', 'tend the PR');
    await scheduler.tick();
    await finishAll();
    await advance(LOOP_SAFETY_CHECK_MS);
    scheduler.loopNext('s1', 60, 'back on track');
    await finishAll();
    expect(store.get(schedule.id)).toMatchObject({ safetyCheck: false, nextReason: 'back on track' });
  });

  it('loop_next and loop_stop without a self-paced loop say how one starts', () => {
    const { scheduler } = harness();
    expect(() => scheduler.loopNext('s1', 60, 'x')).toThrow(/only when the person types \/loop/);
    expect(() => scheduler.loopStop('s1')).toThrow(/No self-paced loop/);
  });

  it('Esc stops the loops and leaves reminders and cron schedules alone', () => {
    const { scheduler } = harness();
    scheduler.startLoop('s1', '5m a');
    scheduler.startLoop('s1', 'b');
    const cron = scheduler.create('s1', { cron: '0 9 * * *', prompt: 'standup', recurring: true, durable: false });
    const reminder = scheduler.create('s1', {
      cron: '0 17 * * *',
      prompt: 'wrap up',
      recurring: false,
      durable: false,
    });
    expect(scheduler.stopLoops('s1')).toHaveLength(2);
    expect(
      scheduler
        .list('s1')
        .map((item) => item.id)
        .sort(),
    ).toEqual([cron.id, reminder.id].sort());
  });

  it(`holds at most ${MAX_SCHEDULES_PER_SESSION} schedules per conversation`, () => {
    const { scheduler } = harness();
    for (let i = 0; i < MAX_SCHEDULES_PER_SESSION; i++)
      scheduler.create('s1', { cron: `${i % 60} * * * *`, prompt: `p${i}`, recurring: true, durable: false });
    expect(() =>
      scheduler.create('s1', { cron: '0 * * * *', prompt: 'one more', recurring: true, durable: false }),
    ).toThrow(/already has 50 schedules/);
    expect(() => scheduler.startLoop('s1', '5m x')).toThrow(/already has 50 schedules/);
    expect(
      scheduler.create('s2', { cron: '0 * * * *', prompt: 'elsewhere', recurring: true, durable: false }),
    ).toBeTruthy();
  });

  it('refuses a bad cron naming the field, and a one-shot cron that never fires', () => {
    const { scheduler } = harness();
    expect(() => scheduler.create('s1', { cron: '0 0 * * MON', prompt: 'x', recurring: true, durable: false })).toThrow(
      /day-of-week field/,
    );
    expect(() => scheduler.create('s1', { cron: '0 0 30 2 *', prompt: 'x', recurring: false, durable: false })).toThrow(
      /never fires/,
    );
  });

  it('runs a conversation’s schedules only in that conversation', async () => {
    const { scheduler, runs } = harness();
    scheduler.startLoop('s1', '5m mine');
    scheduler.startLoop('s2', '5m theirs');
    await scheduler.tick();
    expect(runs.map((run) => [run.sessionId, run.text]).sort()).toEqual([
      ['s1', 'mine'],
      ['s2', 'theirs'],
    ]);
  });
});

describe('resuming after a restart', () => {
  function before() {
    const first = harness();
    const { scheduler } = first;
    const hourly = scheduler.create('s1', { cron: '0 * * * *', prompt: 'hourly', recurring: true, durable: false });
    const ahead = scheduler.create('s1', {
      cron: '0 9 12 6 *',
      prompt: 'on the 12th',
      recurring: false,
      durable: false,
    });
    const soon = scheduler.create('s1', { cron: '20 10 * * *', prompt: 'at 10:20', recurring: false, durable: false });
    const loop = scheduler.startLoop('s1', '10m loop').schedule;
    const gone = scheduler.create('s2', {
      cron: '0 * * * *',
      prompt: 'deleted session',
      recurring: true,
      durable: false,
    });
    const durableOnce = scheduler.create('s1', {
      cron: '40 10 * * *',
      prompt: 'job once',
      recurring: false,
      durable: true,
    });
    const durableDaily = scheduler.create('s1', {
      cron: '45 10 * * *',
      prompt: 'job daily',
      recurring: true,
      durable: true,
    });
    // Made by the model, durable jobs wait for the person to turn them on.
    expect(durableOnce.paused && durableDaily.paused).toBe(true);
    scheduler.pause(durableOnce.id, false);
    scheduler.pause(durableDaily.id, false);
    first.store.close();
    open.length = 0;
    return { dir: first.dir, hourly, ahead, soon, loop, gone, durableOnce, durableDaily };
  }

  it('within the lifetime: recurring ones and one-shots still ahead come back, held until the person resumes; missed one-shots are dropped', async () => {
    const made = before();
    const later = START + 2 * HOUR; // 12:07
    const { scheduler, store, sessions, runs, advance } = harness({ dir: made.dir, now: later, resume: false });
    sessions.delete('s2');
    scheduler.start();
    scheduler.stop();
    expect(store.get(made.gone.id)).toBeUndefined();
    expect(store.get(made.soon.id)).toBeUndefined();
    expect(store.get(made.ahead.id)).toBeTruthy();
    // No catch-up: the hourly one waits for 13:00.
    expect(store.get(made.hourly.id)!.nextFireAt! - made.hourly.jitterMs).toBe(at('2026-06-10T13:00:00Z'));
    // A durable one-shot missed while closed asks; a durable recurring job gets one run for its missed window.
    expect(store.get(made.durableOnce.id)).toMatchObject({ needsConfirmation: true });
    expect(store.get(made.durableDaily.id)!.nextFireAt).toBe(later);

    const held = scheduler.held();
    expect(held.map((entry) => [entry.sessionId, entry.schedules.length]).sort()).toEqual([
      [null, 2],
      ['s1', 3],
    ]);
    expect(held.flatMap((entry) => entry.schedules).every((schedule) => schedule.held)).toBe(true);
    await advance(2 * HOUR);
    expect(runs).toEqual([]);

    scheduler.resumeHeld('s1');
    scheduler.resumeHeld(null);
    await advance(1000, 1000);
    // Each recurring schedule runs once for the window it missed while held, the durable job once: no burst.
    expect(runs.map((run) => run.text).sort()).toEqual(['hourly', 'job daily', 'loop']);
    // The durable one-shot waits for "Run now".
    scheduler.runNow(made.durableOnce.id);
    await advance(1000, 1000);
    expect(runs.at(-1)).toMatchObject({ text: 'job once', sessionId: 's1' });
    expect(store.get(made.durableOnce.id)).toBeUndefined();
  });

  it('Pause all keeps them, paused; nothing runs', async () => {
    const made = before();
    const { scheduler, store, runs, advance } = harness({ dir: made.dir, now: START + HOUR, resume: false });
    scheduler.start();
    scheduler.stop();
    scheduler.pauseHeld('s1');
    await advance(3 * HOUR);
    expect(runs.filter((run) => run.sessionId === 's1' && run.text !== 'job once' && run.text !== 'job daily')).toEqual(
      [],
    );
    expect(store.get(made.hourly.id)!.paused).toBe(true);
    expect(scheduler.held().map((entry) => entry.sessionId)).not.toContain('s1');
  });

  it('beyond the lifetime: recurring ones and loops are gone', () => {
    const made = before();
    const { scheduler, store } = harness({ dir: made.dir, now: START + RECURRING_LIFETIME_MS + HOUR });
    scheduler.start();
    scheduler.stop();
    expect(store.get(made.hourly.id)).toBeUndefined();
    expect(store.get(made.loop.id)).toBeUndefined();
    expect(store.get(made.durableDaily.id)).toBeUndefined();
    expect(store.get(made.ahead.id)).toBeUndefined();
  });
});

describe('the lease between two schedulers on one file', () => {
  it('fires a durable job once when both see it due', async () => {
    const a = harness({ holder: 'a' });
    const b = harness({ dir: a.dir, holder: 'b' });
    const job = a.scheduler.create('s1', { cron: '* * * * *', prompt: 'job', recurring: true, durable: true });
    a.scheduler.pause(job.id, false);
    for (let i = 0; i < 30; i++) {
      const next = Math.max(a.clock.time, a.store.get(job.id)!.nextFireAt!);
      a.clock.time = b.clock.time = next;
      await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
    }
    expect(a.runs.length + b.runs.length).toBe(30);
  });
});

describe('edge cases found in review', () => {
  it('a loop’s first pass (or Run now) is never followed by a cron time moments later', async () => {
    for (const [args, gapMs] of [
      ['1h check', HOUR],
      ['1d check', 24 * HOUR],
      ['5m check', 5 * MINUTE],
    ] as const) {
      const { scheduler, store, runs, advance } = harness({ now: at('2026-06-10T10:05:03Z') });
      const { schedule } = scheduler.startLoop('s1', args);
      await scheduler.tick();
      expect(runs).toHaveLength(1);
      const next = store.get(schedule.id)!.nextFireAt!;
      // At least most of an interval away (a cron time, plus its late offset).
      expect(next - runs[0]!.at).toBeGreaterThan(gapMs * 0.8 - MINUTE);
      scheduler.runNow(schedule.id);
      await advance(1000, 1000);
      expect(runs).toHaveLength(2);
      expect(store.get(schedule.id)!.nextFireAt! - runs[1]!.at).toBeGreaterThan(gapMs * 0.8 - MINUTE);
    }
  });

  it('a self-paced loop whose check passed while Drover was closed is taken up, and nothing else stops', async () => {
    const first = harness({ autoFinish: false });
    const { schedule } = first.scheduler.startLoop('s1', 'watch CI');
    await first.scheduler.tick();
    first.scheduler.loopNext('s1', 600, 'ten minutes');
    await first.finishAll();
    const other = first.scheduler.create('s1', {
      cron: '0 * * * *',
      prompt: 'hourly',
      recurring: true,
      durable: false,
    });
    first.store.close();
    open.length = 0;
    const again = harness({ dir: first.dir, now: START + 2 * HOUR, resume: true });
    again.scheduler.start();
    again.scheduler.stop();
    expect(again.store.get(schedule.id)!.nextFireAt).toBe(START + 2 * HOUR);
    expect(again.store.get(other.id)!.nextFireAt).toBeGreaterThan(START + 2 * HOUR);
    await again.scheduler.tick();
    expect(again.runs.map((run) => run.text)).toEqual(['watch CI']);
    // Paused and resumed past its time: it is due now, no error.
    again.scheduler.pause(schedule.id, true);
    expect(again.scheduler.pause(schedule.id, false).paused).toBe(false);
  });

  it('never runs twice at the expiry: a first match past the lifetime, or a run held past it', async () => {
    const monthly = harness();
    const made = monthly.scheduler.create('s1', { cron: '0 0 1 * *', prompt: 'x', recurring: true, durable: false });
    expect(made).toMatchObject({ nextFireAt: made.expiresAt, finalFire: true });
    await monthly.advance(8 * 24 * HOUR, HOUR);
    expect(monthly.runs).toHaveLength(1);

    const hourly = harness();
    const job = hourly.scheduler.create('s1', { cron: '0 * * * *', prompt: 'y', recurring: true, durable: false });
    hourly.busy.add('s1');
    await hourly.advance(RECURRING_LIFETIME_MS + HOUR, HOUR);
    hourly.busy.delete('s1');
    await hourly.advance(10_000, 1000);
    expect(hourly.runs).toHaveLength(1);
    expect(hourly.store.get(job.id)).toBeUndefined();
  });

  it('holds only what the restart found: a loop typed after it runs, and Run now runs a held one', async () => {
    const first = harness();
    const old = first.scheduler.create('s1', { cron: '0 * * * *', prompt: 'old', recurring: true, durable: false });
    first.store.close();
    open.length = 0;
    const again = harness({ dir: first.dir, now: START + MINUTE, resume: false });
    again.scheduler.start();
    again.scheduler.stop();
    const typed = again.scheduler.startLoop('s1', '5m new').schedule;
    expect(again.scheduler.get(typed.id).held).toBe(false);
    expect(again.scheduler.get(old.id).held).toBe(true);
    await again.scheduler.tick();
    expect(again.runs.map((run) => run.text)).toEqual(['new']);
    again.scheduler.runNow(old.id);
    await again.advance(1000, 1000);
    expect(again.runs.map((run) => run.text)).toEqual(['new', 'old']);
    expect(again.scheduler.held()).toEqual([]);
  });

  it('a run refused before it starts releases the lease and lets the next run happen', async () => {
    const dir = tempDir();
    const store = ScheduleStore.open(dir);
    open.push(store);
    const clock = { time: START };
    let refuse = true;
    const runs: string[] = [];
    const scheduler = new Scheduler(
      schedulerDeps(
        store,
        { now: () => clock.time },
        {
          holder: 'a',
          sessionForJob: () => 's1',
          run: (run) => {
            if (refuse) {
              refuse = false;
              throw new Error('the disk is full');
            }
            runs.push(run.text);
            return Promise.resolve();
          },
        },
      ),
    );
    const job = scheduler.create('s1', { cron: '* * * * *', prompt: 'job', recurring: true, durable: true });
    scheduler.pause(job.id, false);
    clock.time = job.nextFireAt!;
    await scheduler.tick();
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.get(job.id)).toMatchObject({ leaseHolder: null, lastResult: 'failed: the disk is full' });
    clock.time = store.get(job.id)!.nextFireAt!;
    await scheduler.tick();
    expect(runs).toEqual(['job']);
  });
});

describe('the resume guard fails closed, and holds only what would run', () => {
  function madeBefore() {
    const first = harness();
    const hourly = first.scheduler.create('s1', {
      cron: '0 * * * *',
      prompt: 'hourly',
      recurring: true,
      durable: false,
    });
    const paused = first.scheduler.create('s1', {
      cron: '30 * * * *',
      prompt: 'paused',
      recurring: true,
      durable: false,
    });
    first.scheduler.pause(paused.id, true);
    first.store.close();
    open.length = 0;
    return { dir: first.dir, hourly, paused };
  }

  it('a schedule that was paused stays paused and is not counted as one that will resume', () => {
    const made = madeBefore();
    const { scheduler } = harness({ dir: made.dir, now: START + 2 * HOUR, resume: false });
    scheduler.start();
    scheduler.stop();
    expect(scheduler.held().flatMap((entry) => entry.schedules.map((schedule) => schedule.id))).toEqual([
      made.hourly.id,
    ]);
    expect(scheduler.get(made.paused.id)).toMatchObject({ paused: true, held: false });
  });

  it('a schedule whose take-up fails is still held; nothing runs', async () => {
    const made = madeBefore();
    const { scheduler, store, runs, advance } = harness({ dir: made.dir, now: START + 2 * HOUR, resume: false });
    const update = store.update.bind(store);
    store.update = () => {
      throw new Error('disk I/O error');
    };
    scheduler.start();
    scheduler.stop();
    store.update = update;
    expect(scheduler.get(made.hourly.id).held).toBe(true);
    await advance(2 * HOUR);
    expect(runs).toEqual([]);
  });

  it('when the schedules cannot be read at start nothing fires; the next look reads and holds them', async () => {
    const made = madeBefore();
    const { scheduler, store, runs, advance } = harness({ dir: made.dir, now: START + 2 * HOUR, resume: false });
    const all = store.all.bind(store);
    let failures = 1;
    store.all = () => {
      if (failures-- > 0) throw new Error('database is locked');
      return all();
    };
    scheduler.start();
    scheduler.stop();
    expect(scheduler.held()).toEqual([]);
    // Typed while the store could not be read: its own, not the last run's; it runs, the rest wait.
    const typed = scheduler.startLoop('s1', '5m typed').schedule;
    await advance(2 * HOUR);
    expect(runs.map((run) => run.text)).toContain('typed');
    expect(runs.map((run) => run.text)).not.toContain('hourly');
    expect(scheduler.get(made.hourly.id).held).toBe(true);
    expect(scheduler.get(typed.id).held).toBe(false);
  });
});

describe('the budget for unattended turns, as the scheduler sees it', () => {
  it('a typed loop’s first pass and Run now run although the budget is spent, marked as the person’s; due runs wait', async () => {
    const { scheduler, runs, advance } = harness({ allowed: () => false });
    const loop = scheduler.startLoop('s1', '5m tidy').schedule;
    await scheduler.tick();
    expect(runs.map((run) => [run.text, run.byPerson])).toEqual([['tidy', true]]);
    await advance(HOUR);
    expect(runs).toHaveLength(1);
    scheduler.runNow(loop.id);
    await scheduler.tick();
    expect(runs.map((run) => [run.text, run.byPerson])).toEqual([
      ['tidy', true],
      ['tidy', true],
    ]);
    await advance(HOUR);
    expect(runs).toHaveLength(2);
  });

  it('a Run now paused before it ran is not the person’s when the schedule later comes due', async () => {
    let room = false;
    const { scheduler, runs, advance, busy } = harness({ allowed: () => room });
    const hourly = scheduler.create('s1', { cron: '0 * * * *', prompt: 'hourly', recurring: true, durable: false });
    busy.add('s1');
    scheduler.runNow(hourly.id);
    await scheduler.tick();
    scheduler.pause(hourly.id, true);
    busy.delete('s1');
    await advance(HOUR);
    scheduler.pause(hourly.id, false);
    await advance(2 * HOUR);
    // The budget is spent: the cron passes wait; nothing ran as the person's.
    expect(runs).toEqual([]);
    room = true;
    await advance(HOUR);
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((run) => !run.byPerson)).toBe(true);
  });

  it('with room, later passes are not the person’s', async () => {
    const { scheduler, runs, advance } = harness({ allowed: () => true });
    scheduler.startLoop('s1', '5m tidy');
    await advance(30 * MINUTE);
    expect(runs.length).toBeGreaterThan(2);
    expect(runs.map((run) => run.byPerson)).toEqual([true, ...runs.slice(1).map(() => false)]);
  });
});

describe('durable jobs the model makes', () => {
  it('start paused until the person turns them on, and count against the conversation that made them', async () => {
    const { scheduler, runs, advance } = harness();
    const job = scheduler.create('s1', { cron: '* * * * *', prompt: 'job', recurring: true, durable: true });
    expect(job).toMatchObject({ sessionId: null, runSessionId: 's1', paused: true });
    await advance(5 * MINUTE);
    expect(runs).toEqual([]);
    for (let i = 1; i < MAX_SCHEDULES_PER_SESSION; i++)
      scheduler.create('s1', { cron: `${i % 60} * * * *`, prompt: `p${i}`, recurring: true, durable: true });
    expect(() => scheduler.create('s1', { cron: '0 * * * *', prompt: 'x', recurring: true, durable: true })).toThrow(
      /already has 50 schedules/,
    );
    expect(() => scheduler.startLoop('s1', '5m x')).toThrow(/already has 50 schedules/);
    scheduler.pause(job.id, false);
    await advance(MINUTE + 10_000, 10_000);
    expect(runs.map((run) => [run.sessionId, run.text])).toEqual([['s1', 'job']]);
  });
});
