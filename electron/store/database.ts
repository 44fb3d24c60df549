import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { migrations as defaultMigrations, type Migration } from './migrations/index.js';

export const DATABASE_FILE = 'drover.sqlite';

/** The store could not be opened as it is; the file is left exactly as found. */
export class StoreOpenError extends Error {
  readonly file: string;
  readonly reason: 'corrupt' | 'newer' | 'unreadable';

  constructor(reason: StoreOpenError['reason'], file: string, detail: string) {
    super(`${describe(reason)}: ${file} (${detail}). Drover has not changed it; move it aside or restore a backup to start fresh.`);
    this.name = 'StoreOpenError';
    this.file = file;
    this.reason = reason;
  }
}

function describe(reason: StoreOpenError['reason']): string {
  if (reason === 'corrupt') return 'The database is damaged or is not a Drover database';
  if (reason === 'newer') return 'The database was written by a newer version of Drover';
  return 'The database cannot be opened';
}

/**
 * Opens (or creates) the database, checks it is readable and not from a newer
 * version, then applies pending migrations in one transaction.
 */
export function openDatabase(
  file: string,
  migrations: readonly Migration[] = defaultMigrations,
  nativeBinding?: string,
): Database {
  const isMemory = file === ':memory:';
  const existed = !isMemory && existsSync(file);
  if (!isMemory) mkdirSync(dirname(file), { recursive: true });
  let db: Database;
  try {
    db = new BetterSqlite3(file, nativeBinding ? { fileMustExist: existed, nativeBinding } : { fileMustExist: existed });
  } catch (error) {
    throw new StoreOpenError('unreadable', file, messageOf(error));
  }
  try {
    // Reading the schema forces SQLite to parse the header: a non-database fails here, before any write.
    let version: number;
    try {
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      version = db.pragma('user_version', { simple: true }) as number;
    } catch (error) {
      throw new StoreOpenError('corrupt', file, messageOf(error));
    }
    const latest = migrations.at(-1)?.version ?? 0;
    if (version > latest) {
      throw new StoreOpenError('newer', file, `schema version ${version}, this build knows up to ${latest}`);
    }
    if (!isMemory) db.pragma('journal_mode = WAL');
    // In WAL mode NORMAL never corrupts the file; a power cut may lose the last commits, not the database.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations, version);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError('corrupt', file, messageOf(error));
  }
}

/** Applies every migration above `from` in one transaction; a failure leaves the file as it was. */
export function migrate(db: Database, migrations: readonly Migration[], from: number): void {
  const pending = migrations.filter((migration) => migration.version > from);
  if (pending.length === 0) return;
  db.transaction(() => {
    for (const migration of pending) migration.up(db);
    db.pragma(`user_version = ${pending.at(-1)!.version}`);
  })();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
