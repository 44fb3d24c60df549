/**
 * The store under faults (issue #12): damaged files, a disk that turns read-only, damaged rows,
 * old permissions and a full disk, each against a real host process on a real file system.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runHostToExit, spawnHost, TEST_TOKEN, type SpawnedHost } from '../host/spawn-host.js';
import { tempDir } from '../helpers.js';

const DB = 'drover.sqlite';
const isRoot = process.getuid?.() === 0;
const started: SpawnedHost[] = [];

async function startHost(dataDir: string): Promise<SpawnedHost> {
  const host = await spawnHost(dataDir);
  started.push(host);
  return host;
}

afterEach(async () => {
  // Every host a test started must have been stopped by it; any still running is a failure.
  const strays = started.splice(0).filter((host) => host.child.exitCode === null && host.child.signalCode === null);
  for (const host of strays) await host.stop('SIGKILL');
  expect(strays.map((host) => host.child.pid)).toEqual([]);
});

async function rest(
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

const hash = (file: string) =>
  existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'absent';

function integrity(file: string): string {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

/** A data folder with acknowledged rows: sessions made through a real host, messages added while it is stopped. */
async function folderWithRows(sessions = 3, messagesEach = 400): Promise<{ dataDir: string; ids: string[] }> {
  const dataDir = tempDir('drover-faults-');
  const host = await startHost(dataDir);
  const ids: string[] = [];
  for (let i = 0; i < sessions; i++)
    ids.push((await rest(host, 'POST', '/sessions', { title: `Session ${i}` })).body.id);
  expect(await host.stop()).toBe(0);
  const db = new BetterSqlite3(join(dataDir, DB));
  const insert = db.prepare("INSERT INTO messages (session_id, role, text, created_at) VALUES (?, 'user', ?, ?)");
  db.transaction(() => {
    for (const id of ids)
      for (let m = 0; m < messagesEach; m++) insert.run(id, `message ${m} `.repeat(40), 1_700_000_000_000 + m);
  })();
  db.close();
  return { dataDir, ids };
}

/** The one refusal every kind of damage gets: exit 3, the file named, what to do, no stack trace. */
async function expectRefused(dataDir: string, why: RegExp): Promise<void> {
  const file = join(dataDir, DB);
  const before = [hash(file), hash(`${file}-wal`)];
  const { code, stderr } = await runHostToExit(dataDir);
  expect(code).toBe(3);
  expect(stderr).toContain(`Drover's database ${file} is damaged or is not a Drover database`);
  expect(stderr).toMatch(why);
  expect(stderr).toContain(`move ${file} aside`);
  expect(stderr).toContain('Drover has not changed it');
  expect(stderr).not.toMatch(/\n\s+at /);
  expect([hash(file), hash(`${file}-wal`)]).toEqual(before);
}

function overwrite(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

function garbage(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 131 + 7) & 0xff;
  return bytes;
}

describe('a damaged database is refused at open, untouched', () => {
  it('8 KiB of garbage in the middle of the file', async () => {
    const { dataDir } = await folderWithRows();
    const file = join(dataDir, DB);
    const middle = Math.floor(statSync(file).size / 2 / 4096) * 4096;
    overwrite(file, middle, garbage(8192));
    await expectRefused(dataDir, /Tree \d+ page \d+|malformed/);
  });

  it("garbage in the sessions table's root page", async () => {
    const { dataDir } = await folderWithRows(2, 10);
    const file = join(dataDir, DB);
    const db = new BetterSqlite3(file, { readonly: true });
    const root = (
      db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'sessions'").get() as { rootpage: number }
    ).rootpage;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    overwrite(file, (root - 1) * pageSize, garbage(pageSize));
    await expectRefused(dataDir, /damaged or is not a Drover database \(/);
  });

  it('a file cut short', async () => {
    const { dataDir } = await folderWithRows();
    const file = join(dataDir, DB);
    truncateSync(file, Math.floor(statSync(file).size / 3 / 4096) * 4096);
    await expectRefused(dataDir, /\(.+\)/);
  });

  it('a file emptied to zero bytes', async () => {
    const { dataDir } = await folderWithRows(1, 1);
    truncateSync(join(dataDir, DB), 0);
    await expectRefused(dataDir, /the file is empty/);
  });

  it('a write-ahead log with a broken header after a crash; restoring it brings every acknowledged row back', async () => {
    const dataDir = tempDir('drover-faults-');
    const host = await startHost(dataDir);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await rest(host, 'POST', '/sessions', { title: `Acknowledged ${i}` })).body.id);
    await host.stop('SIGKILL');
    const wal = join(dataDir, `${DB}-wal`);
    expect(statSync(wal).size).toBeGreaterThan(0);
    const original = readFileSync(wal).subarray(0, 32);
    overwrite(wal, 0, garbage(32));
    await expectRefused(dataDir, /write-ahead log .*-wal has a damaged header/);

    overwrite(wal, 0, original);
    const again = await startHost(dataDir);
    const listed = (await rest(again, 'GET', '/sessions')).body as { id: string }[];
    expect(listed.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(await again.stop()).toBe(0);
    expect(integrity(join(dataDir, DB))).toBe('ok');
  });
});

describe('damaged rows and a damaged disk at run time', () => {
  it('corrupt rows of every table: the host starts, answers clearly, lists the good rows and keeps the bad ones', async () => {
    const { dataDir, ids } = await folderWithRows(3, 5);
    const [good, withBadMessage, badSession] = ids as [string, string, string];
    const file = join(dataDir, DB);
    const db = new BetterSqlite3(file);
    db.prepare('UPDATE sessions SET created_at = ? WHERE id = ?').run(-5, badSession);
    db.prepare("UPDATE messages SET role = 'robot' WHERE id = (SELECT min(id) FROM messages WHERE session_id = ?)").run(
      withBadMessage,
    );
    db.prepare(
      `INSERT INTO tasks (id, seq, session_id, kind, command, cwd, status, run_id, queued_at, timeout_seconds, notify, adopted, foreground, log_path)
       VALUES ('bg_900', 900, ?, 'command', 'true', '/', 'no-such-status', 'old', 1, 60, 0, 0, 0, '/nowhere/output.log')`,
    ).run(withBadMessage);
    db.prepare(
      "INSERT INTO meta (name, value) VALUES ('owner', 'not json') ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    ).run();
    db.prepare("UPDATE meta SET value = 'NOT AN ID!' WHERE name = 'instance_id'").run();
    db.prepare(
      "INSERT INTO counters (name, value) VALUES ('task_seq', -7) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    ).run();
    db.close();
    const stored = () => {
      const read = new BetterSqlite3(file, { readonly: true });
      try {
        return {
          sessions: read.prepare('SELECT count(*) AS n FROM sessions').get(),
          messages: read.prepare('SELECT count(*) AS n FROM messages').get(),
          badTask: read.prepare("SELECT status FROM tasks WHERE id = 'bg_900'").get(),
          badMessage: read.prepare("SELECT count(*) AS n FROM messages WHERE role = 'robot'").get(),
        };
      } finally {
        read.close();
      }
    };
    const before = stored();

    const host = await startHost(dataDir);
    const sessions = await rest(host, 'GET', '/sessions');
    expect(sessions.status).toBe(200);
    expect((sessions.body as { id: string }[]).map((s) => s.id).sort()).toEqual([good, withBadMessage].sort());
    expect((await rest(host, 'GET', `/sessions/${good}/messages`)).body).toHaveLength(5);
    const transcript = await rest(host, 'GET', `/sessions/${withBadMessage}/messages`);
    expect(transcript.status).toBe(503);
    expect(transcript.body.error.message).toMatch(/^Unreadable message row \d+: role: .*kept in the database/);
    const opened = await rest(host, 'GET', `/sessions/${badSession}`);
    expect(opened.status).toBe(503);
    expect(opened.body.error.message).toMatch(/Unreadable session row .*created_at/);
    expect((await rest(host, 'GET', '/info')).status).toBe(200);
    expect(await host.stop()).toBe(0);

    expect(stored()).toEqual(before);
    expect(integrity(file)).toBe('ok');
  });

  it.skipIf(!isRoot)(
    'a disk that turns read-only under a running host: clear answers, reads go on, the host stays up',
    async () => {
      const base = tempDir('drover-ro-');
      const image = join(base, 'disk.img');
      const mount = join(base, 'mnt');
      mkdirSync(mount);
      writeFileSync(image, '');
      truncateSync(image, 32 * 1024 * 1024);
      execFileSync('mkfs.ext4', ['-q', '-F', image]);
      execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, mount]);
      try {
        const dataDir = join(mount, 'data');
        const host = await startHost(dataDir);
        try {
          const kept = (await rest(host, 'POST', '/sessions', { title: 'Before' })).body.id as string;
          const device = execFileSync('findmnt', ['-no', 'SOURCE', mount]).toString().trim().replace('/dev/', '');
          // ext4's own error path: the file system turns read-only at once, with the files still open.
          writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, 'drover fault test\n');
          expect(execFileSync('findmnt', ['-no', 'OPTIONS', mount]).toString()).toMatch(/(^|,)ro(,|$)|emergency_ro/);

          const refused = await rest(host, 'POST', '/sessions', { title: 'After' });
          expect(refused.status).toBe(503);
          expect(refused.body.error.message).toContain(join(dataDir, DB));
          const listed = await rest(host, 'GET', '/sessions');
          expect(listed.status).toBe(200);
          expect((listed.body as { id: string }[]).map((s) => s.id)).toEqual([kept]);
          expect((await rest(host, 'GET', '/info')).status).toBe(200);
          expect(host.child.exitCode).toBeNull();
        } finally {
          await host.stop('SIGKILL');
        }
      } finally {
        execFileSync('umount', [mount]);
      }
    },
  );
});

describe('private by default', () => {
  it('a folder left 0755/0644 by an earlier version is made 0700/0600 at start, logs and lock included', async () => {
    const { dataDir, ids } = await folderWithRows(1, 1);
    const taskDir = join(dataDir, 'sessions', ids[0]!, 'bg_1');
    mkdirSync(taskDir, { recursive: true });
    writeFileSync(join(taskDir, 'output.log'), 'old output\n');
    writeFileSync(join(dataDir, 'settings.json'), '{}\n');
    // The person's own things in a folder they chose as the data folder: never Drover's to change.
    mkdirSync(join(dataDir, 'notes'));
    writeFileSync(join(dataDir, 'notes', 'build.sh'), '#!/bin/sh\n');
    const walk = (dir: string): string[] => [
      dir,
      ...readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
      ),
    ];
    for (const path of walk(dataDir))
      chmodSync(path, statSync(path).isDirectory() || path.endsWith('.sh') ? 0o755 : 0o644);

    const host = await startHost(dataDir);
    try {
      const modes = walk(dataDir).map(
        (path) => `${path.slice(dataDir.length) || '/'} ${(statSync(path).mode & 0o777).toString(8)}`,
      );
      expect(modes.filter((line) => !/ (600|700)$/.test(line))).toEqual(['/notes 755', '/notes/build.sh 755']);
      expect(modes).toEqual(
        expect.arrayContaining([
          '/ 700',
          `/${DB}-wal 600`,
          '/drover.lock 600',
          `/sessions/${ids[0]}/bg_1/output.log 600`,
        ]),
      );
    } finally {
      expect(await host.stop()).toBe(0);
    }
  });
});

describe.skipIf(!isRoot)('a full disk while settings are saved', () => {
  it('answers 507 naming the folder, keeps the old settings file and values, and saves once there is room', async () => {
    const dataDir = tempDir('drover-full-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dataDir]);
    try {
      const host = await startHost(dataDir);
      try {
        expect((await rest(host, 'PUT', '/settings', { background: { maxConcurrent: 3 } })).status).toBe(200);
        const file = join(dataDir, 'settings.json');
        const saved = readFileSync(file);
        // Fill every free block; a leftover byte would let a small file through.
        const filler = join(dataDir, 'filler');
        const fd = openSync(filler, 'w');
        try {
          const block = Buffer.alloc(64 * 1024, 1);
          for (;;) writeSync(fd, block);
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
        } finally {
          closeSync(fd);
        }
        const full = await rest(host, 'PUT', '/settings', { background: { maxConcurrent: 9, maxConcurrentTotal: 40 } });
        expect(full.status).toBe(507);
        expect(full.body.error.message).toContain(`The disk holding ${dataDir} is full`);
        expect(readFileSync(file).equals(saved)).toBe(true);
        expect((await rest(host, 'GET', '/settings')).body.background.max_concurrent).toBe(3);
        expect(readdirSync(dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);

        rmSync(filler);
        const later = await rest(host, 'PUT', '/settings', { background: { maxConcurrent: 9 } });
        expect(later.status).toBe(200);
        expect(JSON.parse(readFileSync(file, 'utf8')).background.maxConcurrent).toBe(9);
        expect(statSync(file).mode & 0o777).toBe(0o600);
      } finally {
        expect(await host.stop()).toBe(0);
      }
      expect(integrity(join(dataDir, DB))).toBe('ok');
    } finally {
      execFileSync('umount', [dataDir]);
    }
  });
});
