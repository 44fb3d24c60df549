import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { logText, makePool, pidAlive, type Harness } from './pool-harness.js';
import { until } from '../helpers.js';
import type { Runner } from '../../electron/pool/runner.js';

const open: Harness[] = [];
function harness(...args: Parameters<typeof makePool>): Harness {
  const h = makePool(...args);
  open.push(h);
  return h;
}
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

const cwd = tmpdir();

describe('task pool with real processes', () => {
  it('runs a command, keeps its output and settles as succeeded', async () => {
    const { pool, sessionId } = harness();
    const started = await pool.start({
      sessionId,
      command: 'printf "one\\ntwo\\n"; echo "$DROVER_TASK_ID $TERM $PAGER"',
      cwd,
    });
    expect(started.id).toMatch(/^bg_\d+$/);
    const done = await pool.waitFor(started.id, 5_000);
    expect(done).toMatchObject({ status: 'succeeded', exitCode: 0, signal: null });
    const output = await pool.output(sessionId, started.id);
    expect(output.text).toBe(`one\ntwo\n${started.id} xterm-256color cat`);
    expect(readFileSync(started.logPath, 'utf8')).toContain('one\ntwo\n');
    expect(started.logPath).toContain(`/sessions/${sessionId}/background/${started.id}/output.log`);
  });

  it('reports failures with the shell convention and annotates conventional codes', async () => {
    const { pool, sessionId } = harness();
    const failed = await pool.start({ sessionId, command: 'exit 3', cwd });
    const grep = await pool.start({ sessionId, command: 'echo hay | grep needle', cwd });
    const missing = await pool.start({ sessionId, command: 'definitely-not-a-program-xyz', cwd });
    expect(await pool.waitFor(failed.id, 5_000)).toMatchObject({ status: 'failed', exitCode: 3, exitNote: null });
    expect(await pool.waitFor(grep.id, 5_000)).toMatchObject({
      status: 'failed',
      exitCode: 1,
      exitNote: 'no matches found',
    });
    expect(await pool.waitFor(missing.id, 5_000)).toMatchObject({
      status: 'failed',
      exitCode: 127,
      exitNote: 'command not found',
    });
    expect((await pool.output(sessionId, missing.id)).text).toMatch(/not found/);
  });

  it('fails at once, with the reason, when the working directory is missing; never claims to run', async () => {
    const { pool, sessionId, rows } = harness();
    const task = await pool.start({ sessionId, command: 'echo hi', cwd: '/no/such/folder' });
    expect(task).toMatchObject({
      status: 'failed',
      error: 'the working directory does not exist: /no/such/folder',
      pid: null,
    });
    expect(rows.filter((row) => row.id === task.id).map((row) => row.status)).toEqual(['queued', 'failed']);
  });

  it('times out: the whole group is killed and the task records timed_out', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({ sessionId, command: 'sleep 30', cwd, timeoutSeconds: 1 });
    const done = await pool.waitFor(task.id, 10_000);
    expect(done).toMatchObject({ status: 'timed_out', exitCode: 143, signal: 'SIGTERM' });
    expect(done!.exitNote).toMatch(/timed out after 1 s/);
    expect(pidAlive(task.pid!)).toBe(false);
  });

  it('ends a child that ignores SIGTERM with SIGKILL after the grace', async () => {
    const { pool, sessionId } = harness({ stopGraceMs: 500 });
    const task = await pool.start({ sessionId, command: "trap '' TERM; echo ready; while :; do sleep 0.1; done", cwd });
    await until(() => pool.row(sessionId, task.id).status === 'running', 'start');
    await until(() => logText(task.logPath).includes('ready'), 'the trap to be set');
    const began = Date.now();
    const { record } = await pool.stop(sessionId, task.id);
    expect(Date.now() - began).toBeGreaterThanOrEqual(450);
    expect(record).toMatchObject({ status: 'stopped', exitCode: 137, signal: 'SIGKILL' });
    expect(pidAlive(task.pid!)).toBe(false);
  });

  it('keeps a task running while a child outlives its leader, and stopping it ends the child', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({
      sessionId,
      command: "(trap '' HUP; exec sleep 60) & echo child=$!; sleep 0.3; exit 0",
      cwd,
    });
    await until(() => logText(task.logPath).includes('child='), 'the child pid');
    const childPid = Number(/child=(\d+)/.exec(logText(task.logPath))![1]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pidAlive(childPid)).toBe(true);
    expect(pool.row(sessionId, task.id).status).toBe('running');
    const { record } = await pool.stop(sessionId, task.id);
    expect(record.status).toBe('stopped');
    await until(() => !pidAlive(childPid), 'the child to end');
  });

  it('on the process-group fallback, ends a child that left the group (setsid) by its mark when the task is stopped, and names it', async () => {
    const { pool, sessionId } = harness({}, undefined, { containment: 'group' });
    const task = await pool.start({ sessionId, command: 'setsid sleep 60 & echo escaped=$!; sleep 60', cwd });
    await until(() => logText(task.logPath).includes('escaped='), 'the escapee to start');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { record } = await pool.stop(sessionId, task.id);
    expect(record.exitNote).toMatch(/also ended 1 process that had left its group: \d+/);
    const escapee = Number(/left its group: (\d+)/.exec(record.exitNote!)![1]);
    await until(() => !pidAlive(escapee), 'the escapee to end');
  });

  it('queues past the cap and starts in order', async () => {
    const { pool, sessionId } = harness({ maxConcurrent: 2 });
    const tasks = [];
    for (let i = 0; i < 4; i++) tasks.push(await pool.start({ sessionId, command: `sleep 1.${5 + i}`, cwd }));
    expect(tasks.map((t) => pool.row(sessionId, t.id).status)).toEqual(['running', 'running', 'queued', 'queued']);
    const third = await pool.waitFor(tasks[2]!.id, 10_000);
    const fourth = await pool.waitFor(tasks[3]!.id, 10_000);
    expect(third!.status).toBe('succeeded');
    expect(fourth!.status).toBe('succeeded');
    expect(third!.startedAt!).toBeLessThanOrEqual(fourth!.startedAt!);
    expect(pool.runningCount()).toBe(0);
  });

  it("caps each session on its own: a full session never queues another session's work", async () => {
    const h = harness({ maxConcurrent: 1 });
    h.db.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('sess2', 't', 0, 0)").run();
    const a1 = await h.pool.start({ sessionId: h.sessionId, command: 'sleep 30', cwd });
    const a2 = await h.pool.start({ sessionId: h.sessionId, command: 'sleep 30', cwd });
    const b1 = await h.pool.start({ sessionId: 'sess2', command: 'sleep 30', cwd });
    expect([a1, a2, b1].map((t) => h.pool.row(t.sessionId, t.id).status)).toEqual(['running', 'queued', 'running']);
    expect(h.pool.runningCount(h.sessionId)).toBe(1);
    expect(h.pool.runningCount()).toBe(2);
    await h.pool.stop(h.sessionId, a1.id);
    await until(
      () => h.pool.row(h.sessionId, a2.id).status === 'running',
      'the queued task of the first session to start',
    );
  });

  it('keeps a ceiling across sessions, and starts the first waiting task that has room when a slot frees', async () => {
    const h = harness({ maxConcurrent: 2, maxConcurrentTotal: 2 });
    for (const id of ['sess2', 'sess3'])
      h.db.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, 't', 0, 0)").run(id);
    const a = await h.pool.start({ sessionId: h.sessionId, command: 'sleep 30', cwd });
    const b = await h.pool.start({ sessionId: 'sess2', command: 'sleep 30', cwd });
    const c = await h.pool.start({ sessionId: 'sess3', command: 'sleep 30', cwd });
    expect(h.pool.row('sess3', c.id).status).toBe('queued');
    const fg = await h.pool.startForeground({ sessionId: 'sess3', command: 'sleep 30', cwd });
    expect(h.pool.adopt(fg.id)).toBe('Drover is at its limit across sessions (2 of 2 background tasks running)');
    await h.pool.stop(fg.sessionId, fg.id, 'refused');
    await h.pool.stop('sess2', b.id);
    await until(() => h.pool.row('sess3', c.id).status === 'running', "the third session's task to start");
    expect(h.pool.row(h.sessionId, a.id).status).toBe('running');
  });

  it('stops a queued task without ever starting it', async () => {
    const { pool, sessionId } = harness({ maxConcurrent: 1 });
    const first = await pool.start({ sessionId, command: 'sleep 5', cwd });
    const second = await pool.start({ sessionId, command: 'echo never', cwd });
    const { record } = await pool.stop(sessionId, second.id);
    expect(record).toMatchObject({ status: 'stopped', pid: null, startedAt: null });
    await pool.stop(sessionId, first.id);
  });

  it('reports an already settled task as such and an unknown id as not found', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({ sessionId, command: 'true', cwd });
    await pool.waitFor(task.id, 5_000);
    expect(await pool.stop(sessionId, task.id)).toMatchObject({ wasSettled: true, record: { status: 'succeeded' } });
    await expect(pool.stop(sessionId, 'bg_999')).rejects.toMatchObject({ code: 'not_found' });
  });

  it("keeps the program's bytes in the log: LF stays LF, CR LF stays CR LF, and grep sees line ends", async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({ sessionId, command: "printf 'ax\\nbx\\r\\ncx'", cwd });
    await pool.waitFor(task.id, 10_000);
    expect(readFileSync(task.logPath)).toEqual(Buffer.from('ax\nbx\r\ncx'));
    // "ax" and "cx" end in x; "bx" is followed by the CR the program wrote.
    expect(execFileSync('grep', ['-c', 'x$', task.logPath], { encoding: 'utf8' }).trim()).toBe('2');
    expect((await pool.output(sessionId, task.id)).text).toBe('ax\nbx\ncx');
  });

  it('shows bytes that are not UTF-8 as U+FFFD when read', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({ sessionId, command: "printf 'bad \\377\\376 bytes\\n'", cwd });
    await pool.waitFor(task.id, 10_000);
    expect((await pool.output(sessionId, task.id)).text).toBe('bad \uFFFD\uFFFD bytes');
  });

  it('resolves escape sequences split across writes and progress redraws when read', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({
      sessionId,
      command: "printf '\\033[3'; sleep 0.2; printf '1mred\\033[0m\\n'; printf '10%%\\r50%%\\r100%%\\n'",
      cwd,
    });
    await pool.waitFor(task.id, 5_000);
    expect((await pool.output(sessionId, task.id)).text).toBe('red\n100%');
    expect(readFileSync(task.logPath, 'utf8')).toContain('\x1b[31mred');
  });

  it('keeps memory bounded while a task prints 50 MB, and the log keeps every byte', async () => {
    const { pool, sessionId } = harness({ outputWindowBytes: 256 * 1024 });
    const task = await pool.start({
      sessionId,
      command: "head -c 52428800 /dev/zero | tr '\\0' 'x' | fold -w 99",
      cwd,
    });
    const heapBefore = process.memoryUsage().heapUsed;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - heapBefore)), 20);
    const done = await pool.waitFor(task.id, 120_000);
    clearInterval(sampler);
    expect(done!.status).toBe('succeeded');
    // fold adds a newline after every 99 bytes, and the log keeps each as the LF it is. Not one byte is lost.
    expect(statSync(task.logPath).size).toBe(52_428_800 + Math.floor(52_428_800 / 99));
    expect(peak).toBeLessThan(64 * 1024 * 1024);
    const output = await pool.output(sessionId, task.id, 3);
    expect(output.truncated).toBe(true);
    expect(output.text.split('\n')).toHaveLength(3);
  }, 150_000);

  it('keeps every byte of a command that prints a lot and exits at once (node-pty #72)', async () => {
    const { pool, sessionId } = harness({ maxConcurrent: 5 });
    const tasks = await Promise.all(
      Array.from({ length: 20 }, () => pool.start({ sessionId, command: 'seq 1 3000', cwd })),
    );
    for (const task of tasks) {
      await pool.waitFor(task.id, 10_000);
      // 3000 lines, each ending in the LF seq wrote.
      expect(statSync(task.logPath).size, task.id).toBe(13_893);
    }
  });

  it('reads a tail of lines, short or long, exactly', async () => {
    const { pool, sessionId } = harness();
    const many = await pool.start({ sessionId, command: 'seq 1 2000', cwd });
    const wide = await pool.start({
      sessionId,
      command: "for i in 1 2 3; do head -c 20000 /dev/zero | tr '\\0' $i; echo; done",
      cwd,
    });
    await pool.waitFor(many.id, 5_000);
    await pool.waitFor(wide.id, 5_000);
    expect(await pool.output(sessionId, many.id, 3)).toMatchObject({ text: '1998\n1999\n2000', truncated: true });
    const all = await pool.output(sessionId, many.id, 5000);
    expect(all.truncated).toBe(false);
    expect(all.text.split('\n')).toHaveLength(2000);
    const lastTwo = (await pool.output(sessionId, wide.id, 2)).text.split('\n');
    expect(lastTwo).toEqual(['2'.repeat(20000), '3'.repeat(20000)]);
  });

  it('derives orphaned for an earlier run and never writes it back', async () => {
    const h = harness();
    const task = await h.pool.start({ sessionId: h.sessionId, command: 'sleep 30', cwd });
    const later = h.open('run-2');
    expect(later.row(h.sessionId, task.id).status).toBe('orphaned');
    expect(h.db.prepare('SELECT status FROM tasks WHERE id = ?').get(task.id)).toEqual({ status: 'running' });
    await h.pool.stop(h.sessionId, task.id);
  });

  it('settles what an earlier run never started as lost at the next open, and keeps a heartbeat of running tasks', async () => {
    const h = harness({ maxConcurrent: 1 });
    const first = h.open('run-beating', { maxConcurrent: 1 }, 40);
    const running = await first.start({ sessionId: h.sessionId, command: 'sleep 30', cwd });
    const queued = await first.start({ sessionId: h.sessionId, command: 'echo never', cwd });
    const seenAt = () =>
      (h.db.prepare('SELECT seen_at AS seen FROM tasks WHERE id = ?').get(running.id) as { seen: number | null }).seen;
    await until(() => (seenAt() ?? 0) > running.startedAt!, 'a heartbeat', 10_000);
    // Its Drover is gone (another run opens the folder): the queued task is settled, the live one is a leftover.
    const later = h.open('run-after');
    const lost = later.row(h.sessionId, queued.id);
    expect(lost).toMatchObject({
      status: 'lost',
      running: false,
      exitNote: 'Drover stopped before this task started; it never ran',
      elapsedSeconds: 0,
    });
    expect(lost.endedAt).toBe(new Date(queued.queuedAt).toISOString());
    expect(h.db.prepare('SELECT status FROM tasks WHERE id = ?').get(queued.id)).toEqual({ status: 'lost' });
    expect(later.row(h.sessionId, running.id)).toMatchObject({ status: 'orphaned', leftover: true });
    expect(h.db.prepare('SELECT status FROM tasks WHERE id = ?').get(running.id)).toEqual({ status: 'running' });
    expect(await later.clearFinished(h.sessionId)).toEqual([queued.id]);
    await first.drain();
  });

  it('never reuses an id, even after finished tasks are cleared', async () => {
    const h = harness();
    const a = await h.pool.start({ sessionId: h.sessionId, command: 'true', cwd });
    await h.pool.waitFor(a.id, 5_000);
    expect(await h.pool.clearFinished(h.sessionId)).toEqual([a.id]);
    const again = h.open('run-2');
    const b = await again.start({ sessionId: h.sessionId, command: 'true', cwd });
    expect(b.seq).toBeGreaterThan(a.seq);
    await again.waitFor(b.id, 5_000);
  });

  it('clears finished tasks and their logs, leaving running ones untouched', async () => {
    const { pool, sessionId } = harness();
    const done = await pool.start({ sessionId, command: 'echo bye', cwd });
    const running = await pool.start({ sessionId, command: 'sleep 10', cwd });
    await pool.waitFor(done.id, 5_000);
    expect(await pool.clearFinished(sessionId)).toEqual([done.id]);
    expect(pool.list(sessionId).map((row) => row.id)).toEqual([running.id]);
    expect(() => statSync(done.logPath)).toThrow();
    await pool.stop(sessionId, running.id);
  });

  it('adopts a foreground run past its wait: it keeps running with the maximum timeout', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.startForeground({
      sessionId,
      command: 'echo started; sleep 1; echo finished',
      cwd,
      timeoutSeconds: 5,
    });
    expect(await pool.waitFor(task.id, 300)).toBeNull();
    expect(pool.adopt(task.id)).toBeNull();
    const row = pool.row(sessionId, task.id);
    expect(row).toMatchObject({
      adopted: true,
      foreground: true,
      timeoutSeconds: 3600,
      notifyOnFinish: false,
      status: 'running',
    });
    expect(pool.runningCount()).toBe(1);
    expect(row.elapsedSeconds).toBeGreaterThanOrEqual(0.2);
    const done = await pool.waitFor(task.id, 5_000);
    expect(done!.status).toBe('succeeded');
    expect((await pool.output(sessionId, task.id)).text).toBe('started\nfinished');
  });

  it('refuses to adopt when the pool is full, and names why', async () => {
    const { pool, sessionId } = harness({ maxConcurrent: 1 });
    const bg = await pool.start({ sessionId, command: 'sleep 10', cwd });
    const fg = await pool.startForeground({ sessionId, command: 'sleep 10', cwd });
    expect(pool.adopt(fg.id)).toBe('this session is at its limit (1 of 1 background tasks running)');
    await pool.stop(sessionId, fg.id, 'refused', 'the pool is full');
    await pool.stop(sessionId, bg.id);
  });

  it('a stop that comes while a task is still starting ends what started, and drain never hangs on it', async () => {
    let started = 0;
    const slow = (runner: Runner): Runner => ({
      start: async (spec, listener) => {
        started++;
        await new Promise((resolve) => setTimeout(resolve, 400));
        return runner.start(spec, listener);
      },
    });
    const { pool, sessionId } = harness({}, undefined, { wrapRunner: slow });
    const starting = pool.start({ sessionId, command: 'exec sleep 600', cwd });
    await until(() => started === 1, 'the start to begin');
    const [record] = pool.list(sessionId);
    const stopped = pool.stop(sessionId, record!.id);
    await starting;
    const { record: settled } = await stopped;
    expect(settled.status).toBe('stopped');
    expect(pidAlive(settled.pid!)).toBe(false);
    const another = pool.start({ sessionId, command: 'exec sleep 600', cwd });
    await until(() => started === 2, 'the second start to begin');
    await pool.drain();
    const row = pool.list(sessionId).at(-1)!;
    expect(row.status).toBe('stopped');
    expect(pidAlive(row.pid!)).toBe(false);
    await another;
  });

  it('drain stops everything and takes nothing new', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({ sessionId, command: 'sleep 30', cwd });
    await pool.drain();
    expect(pool.row(sessionId, task.id)).toMatchObject({
      status: 'stopped',
      exitNote: expect.stringContaining('shutting down'),
    });
    await expect(pool.start({ sessionId, command: 'true', cwd })).rejects.toMatchObject({ code: 'unavailable' });
  });
});
