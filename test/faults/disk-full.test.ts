/**
 * A full disk is a state, not a crash: a real host on a small tmpfs of its own, real tasks
 * filling it, then room made again. Needs root (mount), as the containment tests do.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runHostToExit, spawnHost, TEST_TOKEN, type SpawnedHost } from '../host/spawn-host.js';
import { groupRuns } from '../pool/pool-harness.js';
import { mountSmallDisk, type SmallDisk } from '../small-disk.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const smallDisk = (megabytes: number): SmallDisk => mountSmallDisk(megabytes, (cleanup) => cleanups.push(cleanup));

async function request(
  host: SpawnedHost,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${host.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${TEST_TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** Waits for what the host reports, never for a fixed time. */
async function eventually<T>(
  probe: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  limitMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for ${what}: last saw ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function host(disk: SmallDisk): Promise<SpawnedHost> {
  const started = await spawnHost(disk.data);
  cleanups.push(async () => void (await started.stop('SIGKILL')));
  return started;
}

function integrity(file: string): string {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.pragma('integrity_check', { simple: true }) as string) ?? 'no answer';
  } finally {
    db.close();
  }
}

const taskPath = (session: string, id: string) => `/sessions/${session}/background-tasks/${id}`;

describe('a full disk (real host on a small tmpfs)', () => {
  it('keeps a task running while its log cannot grow, answers 507 with the folder named, and resumes by itself when room returns', async () => {
    const disk = smallDisk(6);
    const first = await host(disk);
    const session = (await request(first, 'POST', '/sessions', { title: 'before' })).body.id as string;
    const early = (await request(first, 'POST', `/sessions/${session}/background-tasks`, { command: 'echo kept' }))
      .body;
    await eventually(
      () => request(first, 'GET', taskPath(session, early.id)),
      (r) => r.body.task.status === 'succeeded',
      'the first task',
    );

    disk.fill(1024 * 1024);
    const flood = (
      await request(first, 'POST', `/sessions/${session}/background-tasks`, {
        command: 'yes 0123456789abcdef | head -c 20000000; echo done',
      })
    ).body;
    const settled = await eventually(
      () => request(first, 'GET', taskPath(session, flood.id)),
      (r) => r.body.task.status !== 'running' && r.body.task.status !== 'queued',
      'the flood to end',
    );
    // The rule: the task runs to its end; the row says where its log stopped and what it missed.
    expect(settled.body.task).toMatchObject({ status: 'succeeded', exit_code: 0 });
    expect(settled.body.task.log_note).toMatch(
      new RegExp(
        `The disk holding ${disk.data} was full: its log stopped at .* the remaining .* of its output was not saved`,
      ),
    );
    expect(statSync(flood.log_path).size).toBeLessThan(20_000_000);

    const info = (await request(first, 'GET', '/info')).body;
    expect(info.storage).toMatchObject({
      full: true,
      folder: disk.data,
      message: expect.stringContaining(`The disk holding ${disk.data} is full`),
    });
    const refused = await request(first, 'POST', '/sessions', { title: 'no room' });
    expect(refused.status).toBe(507);
    expect(refused.body.error).toMatchObject({ code: 'disk_full', message: expect.stringContaining(disk.data) });
    const noTask = await request(first, 'POST', `/sessions/${session}/background-tasks`, { command: 'echo no room' });
    expect(noTask.status).toBe(507);
    // What was stored before is served as it was.
    expect((await request(first, 'GET', taskPath(session, early.id))).body.output.text).toContain('kept');

    disk.makeRoom();
    await eventually(
      () => request(first, 'GET', '/info'),
      (r) => r.body.storage.full === false,
      'room to be noticed',
    );
    const after = await request(first, 'POST', '/sessions', { title: 'after' });
    expect(after.status).toBe(201);
    const next = (await request(first, 'POST', `/sessions/${session}/background-tasks`, { command: 'echo again' }))
      .body;
    await eventually(
      () => request(first, 'GET', taskPath(session, next.id)),
      (r) => r.body.task.status === 'succeeded',
      'a task after the disk had room',
    );

    // The flood's final row, kept in memory while the disk was full, reached the database.
    await first.stop();
    const db = join(disk.data, 'drover.sqlite');
    expect(integrity(db)).toBe('ok');
    const rows = new BetterSqlite3(db, { readonly: true });
    try {
      const stored = rows.prepare('SELECT status, log_note FROM tasks WHERE id = ?').get(flood.id) as {
        status: string;
        log_note: string;
      };
      expect(stored.status).toBe('succeeded');
      expect(stored.log_note).toMatch(/was full/);
      expect(rows.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 2 });
    } finally {
      rows.close();
    }
    expect(groupRuns(flood.pid)).toBe(false);
  }, 120_000);

  for (const ending of ['SIGKILL', 'SIGTERM'] as const)
    it(`starts on a disk that is already full (after a ${ending === 'SIGKILL' ? 'crash' : 'clean stop'}), says so, refuses writes with 507, and serves what it has`, async () => {
      const disk = smallDisk(4);
      const first = await host(disk);
      const session = (await request(first, 'POST', '/sessions', { title: 'kept' })).body.id as string;
      await first.stop(ending);

      disk.fill();
      const second = await host(disk);
      const info = (await request(second, 'GET', '/info')).body;
      expect(info.storage.full).toBe(true);
      const sessions = (await request(second, 'GET', '/sessions')).body;
      expect(sessions.map((s: { id: string }) => s.id)).toEqual([session]);
      const refused = await request(second, 'POST', '/sessions', { title: 'no room' });
      expect(refused.status).toBe(507);
      expect(refused.body.error.message).toContain(disk.data);

      disk.makeRoom();
      await eventually(
        () => request(second, 'GET', '/info'),
        (r) => r.body.storage.full === false,
        'room to be noticed',
      );
      expect((await request(second, 'POST', '/sessions', { title: 'room' })).status).toBe(201);
      await second.stop();
      expect(integrity(join(disk.data, 'drover.sqlite'))).toBe('ok');
    }, 120_000);

  for (const spare of [0, 8 * 1024, 32 * 1024])
    it(`refuses to start a new data folder on a full disk (${spare / 1024} KiB free) with a plain message, leaves no file that would read as damaged, and starts once there is room`, async () => {
      const disk = smallDisk(1);
      execFileSync('mkdir', ['-p', disk.data]);
      disk.fill(spare);
      const { code, stderr } = await runHostToExit(disk.data);
      expect(code, stderr).toBe(5);
      expect(stderr).toContain(`The disk holding ${disk.data} is full, so Drover cannot start there`);
      expect(stderr).not.toMatch(/damaged/);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(disk.data, 'drover.sqlite'))).toBe(false);
      disk.makeRoom();
      const started = await host(disk);
      expect((await request(started, 'POST', '/sessions', { title: 'room' })).status).toBe(201);
      await started.stop();
    }, 60_000);

  it('writes a waiting log again once room returns, and the row says how much it missed', async () => {
    const disk = smallDisk(6);
    const first = await host(disk);
    const session = (await request(first, 'POST', '/sessions', { title: 'gap' })).body.id as string;
    // The task prints when told to (a file appears), so the test, not the clock, decides the order.
    const script = [
      'while [ ! -e go1 ]; do sleep 0.02; done',
      'head -c 3000000 /dev/zero | tr "\\0" a',
      'echo',
      'while [ ! -e go2 ]; do sleep 0.02; done',
      'echo tail-marker',
    ].join('; ');
    const task = (await request(first, 'POST', `/sessions/${session}/background-tasks`, { command: script })).body;
    disk.fill(512 * 1024);
    writeFileSync(join(disk.data, 'go1'), '');
    await eventually(
      () => request(first, 'GET', taskPath(session, task.id)),
      (r) => /is full/.test(r.body.task.log_note ?? ''),
      'the log to stop',
    );
    expect((await request(first, 'GET', '/info')).body.storage.full).toBe(true);

    disk.makeRoom();
    await eventually(
      () => request(first, 'GET', taskPath(session, task.id)),
      (r) => /was full/.test(r.body.task.log_note ?? ''),
      'the log to resume',
    );
    writeFileSync(join(disk.data, 'go2'), '');
    const done = await eventually(
      () => request(first, 'GET', taskPath(session, task.id)),
      (r) => r.body.task.status === 'succeeded',
      'the task to end',
    );
    expect(done.body.task.log_note).toMatch(/MiB of its output was not saved; its log misses that part/);
    const log = readFileSync(task.log_path, 'utf8');
    expect(log.endsWith('tail-marker\n')).toBe(true);
    expect(log.length).toBeLessThan(3_000_000);
    expect(existsSync(join(disk.data, 'drover.sqlite'))).toBe(true);
    await first.stop();
    expect(integrity(join(disk.data, 'drover.sqlite'))).toBe('ok');
  }, 120_000);
});
