import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { StoreOpenError } from './database.js';
import { checkIntegrity } from './integrity.js';
import type { Migration } from './migrations/index.js';
import { isNoRoom, NoRoomError } from './no-room.js';
import { makeFilePrivate, PRIVATE_DIR_MODE } from './private-files.js';

/**
 * How long a writer waits for another process's transaction before giving up with "busy".
 * Every change is a short BEGIN IMMEDIATE transaction, so a wait this long means a stuck peer.
 */
export const SHARED_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating if needed) a database file in the data folder shared by several processes (the
 * work ledger, the scheduler's jobs): WAL mode so
 * readers never wait for writers, a busy timeout so writers queue for each other instead of
 * failing, foreign keys on, and pending migrations applied under BEGIN IMMEDIATE so two processes
 * opening a new file at once migrate it exactly once. A file that is not a healthy ledger is
 * refused with a StoreOpenError and left as it is.
 *
 * Unlike Drover's own database there is no folder lock and no clean-close note: other processes
 * (a second Drover, a sub-agent, a script) may hold this file open at any time, so a new, empty
 * file is someone else's open in progress, not lost data.
 */
export function openSharedDatabase(
  dataDir: string,
  fileName: string,
  migrations: readonly Migration[],
  options: { nativeBinding?: string | undefined } = {},
): Database {
  const file = join(dataDir, fileName);
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const existed = existsSync(file);
  let db: Database;
  try {
    db = new BetterSqlite3(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  } catch (error) {
    throw refusal('unreadable', file, dataDir, error);
  }
  try {
    makePrivate(file);
    // First of all: every later step may meet another process's lock and must wait for it.
    db.pragma(`busy_timeout = ${SHARED_BUSY_TIMEOUT_MS}`);
    let version: number;
    try {
      // Reading the schema forces SQLite to parse the header: a file that is no database fails here.
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      version = db.pragma('user_version', { simple: true }) as number;
    } catch (error) {
      throw refusal('corrupt', file, dataDir, error);
    }
    const latest = migrations.at(-1)?.version ?? 0;
    if (version > latest)
      throw new StoreOpenError('newer', file, `schema version ${version}, this build knows up to ${latest}`);
    db.pragma('journal_mode = WAL');
    // In WAL mode NORMAL never corrupts the file; a power cut may lose the last commits, not the ledger.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    if (existed) {
      // These files are small (notes and schedules, not logs), so the full check costs little at each open.
      const problem = checkIntegrity(db, 'full');
      if (problem) throw new StoreOpenError('corrupt', file, problem);
    }
    migrateShared(db, migrations);
    makePrivate(file);
    return db;
  } catch (error) {
    db.close();
    // Nothing is removed on failure: another process may be using these very files.
    if (error instanceof StoreOpenError || error instanceof NoRoomError) throw error;
    throw refusal('corrupt', file, dataDir, error);
  }
}

/**
 * Applies the migrations above the file's version in one BEGIN IMMEDIATE transaction. The version
 * is read again inside it: another process may have migrated while this one waited for the lock.
 */
export function migrateShared(db: Database, migrations: readonly Migration[]): void {
  const latest = migrations.at(-1)?.version ?? 0;
  if ((db.pragma('user_version', { simple: true }) as number) >= latest) return;
  db.transaction(() => {
    const from = db.pragma('user_version', { simple: true }) as number;
    const pending = migrations.filter((migration) => migration.version > from);
    if (pending.length === 0) return;
    for (const migration of pending) migration.up(db);
    db.pragma(`user_version = ${pending.at(-1)!.version}`);
  }).immediate();
}

/** SQLite gives the -wal and -shm files the main file's mode, so the main file is made private first. */
function makePrivate(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if (existsSync(path)) makeFilePrivate(path);
    } catch {
      // Another owner's file (a shared folder): nothing Drover may change.
    }
  }
}

function refusal(reason: StoreOpenError['reason'], file: string, dataDir: string, error: unknown): Error {
  if (isNoRoom(error, dataDir)) return new NoRoomError(dataDir, error);
  return new StoreOpenError(reason, file, error instanceof Error ? error.message : String(error));
}
