import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DroverError } from '../../shared/ipc/errors.js';
import { StoreOpenError } from '../../electron/store/database.js';
import { openWorkDatabase, WORK_BUSY_TIMEOUT_MS, WORK_DATABASE_FILE } from '../../electron/work/work-db.js';
import { WorkLedger } from '../../electron/work/work-ledger.js';
import { workMigrations } from '../../electron/work/work-migrations.js';
import { tempDir } from '../helpers.js';

const LIST = 's_abc';
const toClose: { close(): unknown }[] = [];

afterEach(() => {
  for (const item of toClose.splice(0)) item.close();
});

function keep<T extends { close(): unknown }>(item: T): T {
  toClose.push(item);
  return item;
}

function refusal(call: () => unknown): StoreOpenError {
  try {
    call();
  } catch (error) {
    if (error instanceof StoreOpenError) return error;
    throw error;
  }
  throw new Error('expected the open to be refused');
}

describe('work database', () => {
  it('creates <dataDir>/work.sqlite in WAL mode with foreign keys, a busy timeout and the latest schema', () => {
    const dataDir = join(tempDir(), 'nested');
    const db = keep(openWorkDatabase(dataDir));
    expect(db.name).toBe(join(dataDir, WORK_DATABASE_FILE));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(WORK_BUSY_TIMEOUT_MS);
    expect(db.pragma('user_version', { simple: true })).toBe(workMigrations.at(-1)!.version);
    if (process.platform !== 'win32') {
      expect(statSync(db.name).mode & 0o777).toBe(0o600);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    }
  });

  it('numbers its migrations 1, 2, 3… with no gaps', () => {
    expect(workMigrations.map((migration) => migration.version)).toEqual(workMigrations.map((_, index) => index + 1));
  });

  it('reopens an existing ledger, and two connections see each other\u2019s changes', () => {
    const dataDir = tempDir();
    const first = keep(WorkLedger.open(dataDir));
    const second = keep(WorkLedger.open(dataDir));
    first.create(LIST, { subject: 'from the first' });
    expect(second.get(LIST, 1).subject).toBe('from the first');
    second.update(LIST, { task_id: 1, owner: 'second' });
    expect(first.get(LIST, 1).owner).toBe('second');
    expect(first.create(LIST, { subject: 'next' }).item.id).toBe(2);
  });

  it('refuses a file that is not a database and leaves it exactly as it was', () => {
    const dataDir = tempDir();
    const file = join(dataDir, WORK_DATABASE_FILE);
    writeFileSync(file, 'this is not a database, just some notes\n'.repeat(200));
    const before = readFileSync(file);
    const error = refusal(() => openWorkDatabase(dataDir));
    expect(error.reason).toBe('corrupt');
    expect(error.message).toContain(file);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a ledger written by a newer version', () => {
    const dataDir = tempDir();
    openWorkDatabase(dataDir).close();
    const raw = new BetterSqlite3(join(dataDir, WORK_DATABASE_FILE));
    raw.pragma('user_version = 99');
    raw.close();
    const error = refusal(() => openWorkDatabase(dataDir));
    expect(error.reason).toBe('newer');
    expect(error.message).toContain('schema version 99');
  });
});

describe('work ledger with damaged rows', () => {
  function damaged() {
    const dataDir = tempDir();
    const reports: string[] = [];
    const work = keep(WorkLedger.open(dataDir, { report: (message) => reports.push(message) }));
    for (const subject of ['one', 'two', 'three', 'four']) work.create(LIST, { subject });
    work.update(LIST, { task_id: 3, add_blocked_by: [2] });
    // Damage written behind the ledger's back, the way a stray tool or a bad disk would.
    const raw = keep(new BetterSqlite3(join(dataDir, WORK_DATABASE_FILE)));
    raw.prepare("UPDATE work_items SET metadata = '{broken' WHERE id = 2").run();
    raw.prepare("UPDATE work_items SET metadata = '[1, 2]' WHERE id = 4").run();
    return { work, reports };
  }

  it('lists the readable rows, names the damaged ones once, and keeps them stored', () => {
    const { work, reports } = damaged();
    const listed = work.list(LIST);
    expect(listed.items.map((item) => item.id)).toEqual([1, 3]);
    expect(listed.unreadable).toEqual([2, 4]);
    expect(listed.tally.total).toBe(2);
    // The damaged blocker still counts: 3 waits for 2.
    expect(listed.items[1]!.blockedBy).toEqual([2]);
    expect(reports).toHaveLength(2);
    expect(reports[0]).toBe(
      'Unreadable work item 2 in list s_abc: metadata: is not valid JSON. It is kept in the database as it is ' +
        '(deleting it still works); the other items are unaffected.',
    );
    expect(reports[1]).toContain('Unreadable work item 4 in list s_abc: metadata: is not a JSON object of notes');
    work.list(LIST);
    expect(reports).toHaveLength(2);
  });

  it('answers a damaged item with an error naming it, and still deletes it', () => {
    const { work } = damaged();
    const error = (() => {
      try {
        work.get(LIST, 2);
      } catch (caught) {
        return caught;
      }
    })() as DroverError;
    expect(error).toBeInstanceOf(DroverError);
    expect(error.code).toBe('unavailable');
    expect(error.message).toMatch(/^Unreadable work item 2 in list s_abc: metadata: is not valid JSON/);
    expect(() => work.update(LIST, { task_id: 2, subject: 'x' })).toThrow(/Unreadable work item 2/);

    const deleted = work.update(LIST, { task_id: 2, status: 'deleted' });
    expect(deleted.item).toMatchObject({ id: 2, status: 'deleted', subject: 'two', metadata: {} });
    expect(deleted.unblocked).toEqual([{ id: 3, subject: 'three' }]);
    expect(work.list(LIST).unreadable).toEqual([4]);
  });
});
