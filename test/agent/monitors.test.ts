import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../shared/schemas/task.js';
import { backgroundTools, parseArgs, resolveCall, type ToolContext } from '../../electron/agent/tools.js';
import { MonitorPings, type PingClock } from '../../electron/agent/monitor-pings.js';
import { WakeScheduler } from '../../electron/agent/wakes.js';
import { makePool, type Harness } from '../pool/pool-harness.js';
import { until } from '../helpers.js';

const open: Harness[] = [];
const disposers: (() => void)[] = [];
afterEach(async () => {
  for (const dispose of disposers.splice(0)) dispose();
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

/** A clock the test moves by hand: timers fire only when it passes their time. */
function fakeClock(start = Date.now()): PingClock & { advance(ms: number): void; pending(): number } {
  let now = start;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let next = 1;
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = next++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout(handle) {
      timers = timers.filter((timer) => timer.id !== handle);
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((timer) => timer.at <= now);
      timers = timers.filter((timer) => timer.at > now);
      for (const timer of due) timer.fn();
    },
    pending: () => timers.length,
  };
}

/**
 * A real pool, the model's tools over it, and the wake machinery the services wire (pings and
 * wakes fed every row change), with the ping timers on a clock the test moves.
 */
function harness() {
  const woken: string[] = [];
  const clock = fakeClock();
  let pings: MonitorPings | null = null;
  let wakes: WakeScheduler | null = null;
  const h = makePool({}, undefined, {
    onRow: (row: TaskRow) => {
      wakes?.onTaskChanged(row);
      pings?.onTaskChanged(row);
    },
  });
  open.push(h);
  wakes = new WakeScheduler({
    wake: (_sessionId, text) => woken.push(text),
    shuttingDown: () => h.pool.draining,
    allowed: () => true,
    log: () => {},
  });
  pings = new MonitorPings({
    notePinged: (sessionId, id) => h.pool.notePinged(sessionId, id),
    row: (sessionId, id) => h.pool.row(sessionId, id),
    ping: (row) => wakes.ping(row),
    clock,
  });
  disposers.push(() => {
    wakes.dispose();
    pings.dispose();
  });
  const tools = backgroundTools(h.pool);
  const context: ToolContext = {
    sessionId: h.sessionId,
    cwd: tmpdir(),
    signal: new AbortController().signal,
    permit: async () => ({ allowed: true, reason: '' }),
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const resolved = resolveCall(tools, name, args)!;
    return resolved.tool.execute(parseArgs(resolved.tool, resolved.args) as never, context);
  };
  return { h, call, clock, woken };
}

describe('monitor_command', () => {
  it('starts a monitor (mon_N) in the same pool, answering like a shell task: id, status, pid, cwd, log path', async () => {
    const { h, call } = harness();
    const shell = await call('run_command', { command: 'sleep 30', background: true });
    const answer = await call('monitor_command', { command: 'while true; do echo tick; sleep 1; done' });
    expect(shell.taskId).toBe('bg_1');
    expect(answer.taskId).toBe('mon_2');
    const row = h.pool.row(h.sessionId, 'mon_2');
    expect(row).toMatchObject({
      kind: 'monitor',
      status: 'running',
      notifyMode: 'scheduled',
      checkAfterSeconds: 45,
      notifyOnFinish: true,
      // A monitor without a limit of its own may run as long as any task.
      timeoutSeconds: 3600,
    });
    expect(answer.text).toContain(`Started monitor mon_2: running, pid ${row.pid}, in ${tmpdir()}.`);
    expect(answer.text).toContain(`Log: ${row.logPath}.`);
    expect(answer.text).toContain('when its check is due (in 45 s) and when it exits');
    expect(answer.text).toContain('Do not poll it');
    expect(row.pingDueAt).toBe(new Date(Date.parse(row.startedAt!) + 45_000).toISOString());
  });

  it("takes the spec's checkAfterMs in milliseconds, and refuses a check sooner than 5 s or later than a day", async () => {
    const { h, call } = harness();
    await call('monitor_command', { command: 'sleep 30', checkAfterMs: 90_000, notify: 'exit' });
    expect(h.pool.row(h.sessionId, 'mon_1')).toMatchObject({
      checkAfterSeconds: 90,
      notifyMode: 'exit',
      pingDueAt: null,
    });
    await expect(call('monitor_command', { command: 'sleep 1', check_after_seconds: 4 })).rejects.toThrow(
      /check_after_seconds: Too small/,
    );
    await expect(call('monitor_command', { command: 'sleep 1', check_after_seconds: 86_401 })).rejects.toThrow(
      /check_after_seconds: Too big/,
    );
    await expect(call('monitor_command', { command: 'sleep 1', notify: 'sometimes' })).rejects.toThrow(/notify/);
  });
});

describe('monitor wakes, on a clock the test moves', () => {
  it('scheduled: one ping when the check is due (no output in it), then one at the exit with status, exit code and signal', async () => {
    const { h, call, clock, woken } = harness();
    await call('monitor_command', {
      command: 'while true; do echo SECRET-$((1+1)); sleep 0.2; done',
      check_after_seconds: 5,
    });
    const row = h.pool.row(h.sessionId, 'mon_1');
    // Due 5 s after its start: a millisecond before, nothing; at the time, the ping.
    expect(Date.parse(row.pingDueAt!) - Date.parse(row.startedAt!)).toBe(5_000);
    clock.advance(Date.parse(row.pingDueAt!) - clock.now() - 1);
    expect(h.pool.row(h.sessionId, 'mon_1').pingedAt).toBeNull();
    expect(clock.pending()).toBe(1);
    clock.advance(1);
    await until(() => woken.length === 1, 'the ping');
    const ping = woken[0]!;
    expect(ping).toContain('a monitor check is due');
    expect(ping).toContain(`mon_1 (`);
    expect(ping).toContain(`pid ${row.pid}`);
    expect(ping).toContain(`log ${row.logPath}`);
    expect(ping).toContain('Call monitor_events');
    expect(ping).not.toContain('SECRET-2');
    expect(h.pool.row(h.sessionId, 'mon_1')).toMatchObject({ pingDueAt: null, pingedAt: expect.any(String) });
    // Sent once: the clock moving on sends nothing more.
    clock.advance(3_600_000);
    expect(clock.pending()).toBe(0);
    await h.pool.stop(h.sessionId, 'mon_1');
    await until(() => woken.length === 2, 'the exit wake');
    expect(woken[1]).toContain('have ended');
    expect(woken[1]).toMatch(/mon_1 \(.*\): stopped, exit code 143 \(.*SIGTERM.*\)/);
  });

  it('exit: no ping, one wake at the exit; none: never woken', async () => {
    const { h, call, clock, woken } = harness();
    await call('monitor_command', { command: 'sleep 0.5; exit 3', notify: 'exit', check_after_seconds: 5 });
    await call('monitor_command', { command: 'sleep 0.5', notify: 'none', check_after_seconds: 5 });
    clock.advance(10_000);
    await h.pool.waitFor('mon_1', 15_000);
    await h.pool.waitFor('mon_2', 15_000);
    await until(() => woken.length === 1, 'the exit wake');
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(woken).toHaveLength(1);
    expect(woken[0]).toMatch(/mon_1 \(.*\): failed, exit code 3/);
    expect(woken[0]).not.toContain('mon_2');
    expect(woken[0]).not.toContain('check is due');
  });

  it('a monitor that ends before its check is due is never pinged', async () => {
    const { h, call, clock, woken } = harness();
    await call('monitor_command', { command: 'true', check_after_seconds: 5 });
    await h.pool.waitFor('mon_1', 15_000);
    clock.advance(10_000);
    await until(() => woken.length === 1, 'the exit wake');
    expect(woken[0]).not.toContain('check is due');
  });
});

describe('monitor_events: delta reads', () => {
  it('reads from the stored offset and moves it on; from_offset reads once and leaves it alone', async () => {
    const { h, call } = harness();
    await call('monitor_command', { command: 'echo one; echo two; sleep 30', notify: 'none' });
    await until(() => h.pool.row(h.sessionId, 'mon_1').lastOutputAt !== null, 'output');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const first = await call('monitor_events', { task_id: 'mon_1' });
    expect(first.text).toContain('from_offset: 0');
    expect(first.text).toMatch(/next_offset: 8\b/);
    expect(first.text).toContain('one\ntwo');
    expect(first.display).toEqual({ kind: 'events', bytes: 8, more: false });
    expect(h.pool.row(h.sessionId, 'mon_1').eventOffset).toBe(8);
    const again = await call('monitor_events', { task_id: 'mon_1' });
    expect(again.text).toContain('No new output since the last read.');
    // A one-off read from byte 4 ("two"), under the spec's argument names; the stored offset stays.
    const once = await call('monitor_events', { taskId: 'mon_1', fromOffset: 4 });
    expect(once.text).toContain('from_offset: 4');
    expect(once.text).toContain('two');
    expect(once.text).not.toContain('one');
    expect(h.pool.row(h.sessionId, 'mon_1').eventOffset).toBe(8);
  });

  it('max_bytes: 8,192 by default, clamped to 1 MiB with a note, and a bad value is an error naming it', async () => {
    const { h, call } = harness();
    await call('monitor_command', { command: "head -c 20000 /dev/zero | tr '\\0' 'x'; sleep 30", notify: 'none' });
    await until(() => h.pool.row(h.sessionId, 'mon_1').lastOutputAt !== null, 'output');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const first = await call('monitor_events', { task_id: 'mon_1' });
    expect(first.display).toEqual({ kind: 'events', bytes: 8_192, more: true });
    expect(first.text).toContain('more: yes');
    const big = await call('monitor_events', { task_id: 'mon_1', max_bytes: 5_000_000 });
    expect(big.text).toContain('note: max_bytes 5000000 was asked; 1048576 is the most one read returns.');
    expect(big.display).toEqual({ kind: 'events', bytes: 20_000 - 8_192, more: false });
    await expect(call('monitor_events', { task_id: 'mon_1', max_bytes: 0 })).rejects.toThrow(/max_bytes/);
    await expect(call('monitor_events', { task_id: 'mon_1', from_offset: -1 })).rejects.toThrow(/from_offset/);
    await expect(call('monitor_events', { task_id: 'mon_1', from_offset: 1_000_000 })).rejects.toThrow(
      /past the end of the log \(20000 bytes\)/,
    );
    await expect(call('monitor_events', { task_id: 'mon_9' })).rejects.toThrow(/No task "mon_9"/);
  });

  it('keeps the stored offset across a restart', async () => {
    const { h, call } = harness();
    await call('monitor_command', { command: 'echo first; sleep 0.3; echo second', notify: 'none' });
    await h.pool.waitFor('mon_1', 15_000);
    // Read only "first\n" (6 bytes): the offset is stored.
    await call('monitor_events', { task_id: 'mon_1', max_bytes: 6 });
    await h.pool.drain();
    const next = h.open('run-2');
    expect(next.row(h.sessionId, 'mon_1').eventOffset).toBe(6);
    const tools = backgroundTools(next);
    const resolved = resolveCall(tools, 'monitor_events', { task_id: 'mon_1' })!;
    const answer = await resolved.tool.execute(parseArgs(resolved.tool, resolved.args) as never, {
      sessionId: h.sessionId,
      cwd: tmpdir(),
      signal: new AbortController().signal,
      permit: async () => ({ allowed: true, reason: '' }),
    });
    expect(answer.text).toContain('from_offset: 6');
    expect(answer.text).toContain('second');
    expect(answer.text).not.toContain('first');
    expect(next.row(h.sessionId, 'mon_1').eventOffset).toBe(13);
    await next.drain();
  });

  it('a read after a restart saves the row again without waking anyone a second time', async () => {
    const { h, call, woken } = harness();
    await call('monitor_command', { command: 'echo done', notify: 'exit' });
    await h.pool.waitFor('mon_1', 15_000);
    await until(() => woken.length === 1, 'the exit wake');
    await h.pool.drain();
    // The next run: its own wake scheduler, fed every row change as the services feed it.
    const rewoken: string[] = [];
    const wakes = new WakeScheduler({
      wake: (_sessionId, text) => rewoken.push(text),
      shuttingDown: () => false,
      allowed: () => true,
      log: () => {},
    });
    disposers.push(() => wakes.dispose());
    const next = h.open('run-2');
    const tools = backgroundTools(next);
    const resolved = resolveCall(tools, 'monitor_events', { task_id: 'mon_1' })!;
    const seen: TaskRow[] = [];
    const rows = h.rows.length;
    await resolved.tool.execute(parseArgs(resolved.tool, resolved.args) as never, {
      sessionId: h.sessionId,
      cwd: tmpdir(),
      signal: new AbortController().signal,
      permit: async () => ({ allowed: true, reason: '' }),
    });
    for (const row of h.rows.slice(rows)) {
      seen.push(row);
      wakes.onTaskChanged(row);
    }
    expect(seen.map((row) => row.id)).toContain('mon_1');
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(rewoken).toEqual([]);
    await next.drain();
  });
});

describe('monitor_events called twice at once (one step of the model may do that)', () => {
  it('reads each byte once, in order, and the stored offset only moves forward', async () => {
    const { h, call } = harness();
    await call('monitor_command', { command: "head -c 300000 /dev/zero | tr '\\0' 'y'", notify: 'none' });
    await h.pool.waitFor('mon_1', 15_000);
    const [big, small] = await Promise.all([
      call('monitor_events', { task_id: 'mon_1', max_bytes: 1_048_576 }),
      call('monitor_events', { task_id: 'mon_1', max_bytes: 1 }),
    ]);
    expect(big.display).toEqual({ kind: 'events', bytes: 300_000, more: false });
    expect(small.display).toEqual({ kind: 'events', bytes: 0, more: false });
    expect(small.text).toContain('from_offset: 300000');
    expect(h.pool.row(h.sessionId, 'mon_1').eventOffset).toBe(300_000);
  });
});
