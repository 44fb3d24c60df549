import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, StoreOpenError } from '../../electron/store/database.js';
import { migrations } from '../../electron/store/migrations/index.js';
import { takeCleanClose } from '../../electron/store/integrity.js';
import type { Migration } from '../../electron/store/migrations/index.js';
import { tempDir } from '../helpers.js';

describe('database open and migrations', () => {
  it('creates a new database at the latest version with WAL and foreign keys', () => {
    const file = join(tempDir(), 'nested', 'drover.sqlite');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('numbers migrations 1, 2, 3… with no gaps', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('migrates a version-1 database that has rows in it, keeping every row', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const v1 = openDatabase(file, migrations.slice(0, 1));
    v1.prepare('INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run(
      'old1',
      'Kept',
      1,
      2,
    );
    v1.close();

    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    expect(db.prepare('SELECT id, title, created_at, updated_at FROM sessions').all()).toEqual([
      { id: 'old1', title: 'Kept', created_at: 1, updated_at: 2 },
    ]);
    db.prepare('INSERT INTO messages (session_id, role, text, created_at) VALUES (?, ?, ?, ?)').run(
      'old1',
      'user',
      'hi',
      3,
    );
    expect(() =>
      db
        .prepare('INSERT INTO messages (session_id, role, text, created_at) VALUES (?, ?, ?, ?)')
        .run('ghost', 'user', 'x', 3),
    ).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('rolls back every pending migration when one fails', () => {
    const file = join(tempDir(), 'drover.sqlite');
    openDatabase(file, migrations.slice(0, 1)).close();
    const broken: Migration = {
      version: 3,
      name: 'broken',
      up(db) {
        db.exec('CREATE TABLE half_done (x INTEGER)');
        throw new Error('migration bug');
      },
    };
    expect(() => openDatabase(file, [...migrations, broken])).toThrow(StoreOpenError);
    const raw = new BetterSqlite3(file);
    expect(raw.pragma('user_version', { simple: true })).toBe(1);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name IN ('messages', 'half_done')").all()).toEqual([]);
    raw.close();
  });

  it('refuses a file that is not a database, names it, and leaves it untouched', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const junk = Buffer.from('this is not sqlite at all, just some bytes\n'.repeat(200));
    writeFileSync(file, junk);
    let error: unknown;
    try {
      openDatabase(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).reason).toBe('corrupt');
    expect((error as StoreOpenError).message).toContain(file);
    expect(readFileSync(file).equals(junk)).toBe(true);
  });

  it('refuses a database from a newer version and does not write to it', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const future = new BetterSqlite3(file);
    future.exec("CREATE TABLE sessions (id TEXT); INSERT INTO sessions VALUES ('keep')");
    future.pragma('user_version = 99');
    future.close();
    const before = readFileSync(file);
    expect(() => openDatabase(file)).toThrow(/drover\.sqlite was written by a newer version of Drover/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('checks the whole file after an unclean stop, and only its structure when it is as the last clean close left it', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const db = openDatabase(file);
    db.prepare('INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run('s1', 'Kept', 1, 2);
    db.close();
    expect(existsSync(`${file}.clean`)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Same size and bytes, another modification time (as any write leaves): the open must read every page.
    utimesSync(file, new Date(), new Date(Date.UTC(2020, 0, 1)));
    expect(takeCleanClose(file)).toBe(false);
    expect(existsSync(`${file}.clean`)).toBe(false);
    openDatabase(file).close();
    expect(takeCleanClose(file)).toBe(true);
    expect(takeCleanClose(file)).toBe(false);
  });

  it('refuses an empty file and a write-ahead log with a broken header, touching neither', () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.sqlite');
    writeFileSync(empty, '');
    expect(() => openDatabase(empty)).toThrow(/empty\.sqlite is damaged.*the file is empty/);
    expect(statSync(empty).size).toBe(0);
    const file = join(dir, 'drover.sqlite');
    openDatabase(file).close();
    const wal = Buffer.alloc(4096, 0x5a);
    writeFileSync(`${file}-wal`, wal);
    const before = readFileSync(file);
    expect(() => openDatabase(file)).toThrow(/write-ahead log .*-wal has a damaged header/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readFileSync(`${file}-wal`).equals(wal)).toBe(true);
  });
});
