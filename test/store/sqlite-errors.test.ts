import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteProblem } from '../../electron/store/sqlite-errors.js';
import { tempDir } from '../helpers.js';

function failureOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to fail');
}

describe('sqliteProblem', () => {
  it('names the file for a read-only database and for a file that is not a database', () => {
    const dir = tempDir();
    const file = join(dir, 'drover.sqlite');
    new BetterSqlite3(file).exec('CREATE TABLE t (x)');
    const readonly = new BetterSqlite3(file, { readonly: true });
    const denied = sqliteProblem(
      failureOf(() => readonly.exec('INSERT INTO t VALUES (1)')),
      file,
    );
    readonly.close();
    expect(denied).toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining(`cannot write to its database ${file}`),
    });

    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, 'not a database '.repeat(300));
    const db = new BetterSqlite3(junk);
    const damaged = sqliteProblem(
      failureOf(() => db.prepare('SELECT * FROM sqlite_schema').all()),
      junk,
    );
    db.close();
    expect(damaged).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/database .*junk\.sqlite is damaged.*move .*junk\.sqlite aside/),
    });
  });

  it('counts ENOSPC and EDQUOT from the file system as a full disk, and leaves other failures alone', () => {
    const file = '/data/drover/drover.sqlite';
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL']) {
      expect(sqliteProblem(Object.assign(new Error('x'), { code }), file)).toMatchObject({
        code: 'disk_full',
        message: expect.stringContaining('The disk holding /data/drover is full'),
      });
    }
    for (const error of [new Error('plain'), Object.assign(new Error('x'), { code: 'ERR_SOMETHING' }), 'text', null]) {
      expect(sqliteProblem(error, file)).toBeNull();
    }
  });
});
