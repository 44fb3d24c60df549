import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { migrations as defaultMigrations, type Migration } from './migrations/index.js';
import { makeFilePrivate, PRIVATE_DIR_MODE } from './private-files.js';
import { damagedDatabaseAdvice } from './sqlite-errors.js';
import { checkIntegrity, recordCleanClose, takeCleanClose, walHeaderProblem } from './integrity.js';
import { isFolderFull, isNoRoom, NoRoomError } from './no-room.js';

export const DATABASE_FILE = 'drover.sqlite';

/** The store could not be opened as it is; the file is left exactly as found. */
export class StoreOpenError extends Error {
  readonly file: string;
  readonly reason: 'corrupt' | 'newer' | 'unreadable';

  constructor(reason: StoreOpenError['reason'], file: string, detail: string) {
    super(`${describe(reason, file)} (${detail}). Drover has not changed it. ${advice(reason, file)}`);
    this.name = 'StoreOpenError';
    this.file = file;
    this.reason = reason;
  }
}

function describe(reason: StoreOpenError['reason'], file: string): string {
  // One sentence for every kind of damage, so the person meets the same words whatever broke.
  if (reason === 'corrupt') return `Drover's database ${file} is damaged or is not a Drover database`;
  if (reason === 'newer') return `Drover's database ${file} was written by a newer version of Drover`;
  return `Drover's database ${file} cannot be opened`;
}

function advice(reason: StoreOpenError['reason'], file: string): string {
  if (reason === 'newer') return 'Run that newer version, or move the file aside to start fresh with this one.';
  return damagedDatabaseAdvice(file);
}

/**
 * A database that remembers a clean close: close() leaves a fingerprint of the file beside it,
 * so the next open may skip the full scan when the file is exactly as this run left it.
 */
class DroverDatabase extends BetterSqlite3 {
  #file: string | null = null;

  /** Called once the open has fully succeeded; before that, a close records nothing. */
  trackCleanClose(file: string): void {
    this.#file = file;
  }

  override close(): this {
    super.close();
    if (this.#file) recordCleanClose(this.#file);
    this.#file = null;
    return this;
  }
}

/**
 * Opens (or creates) the database, checks that it is intact, readable and not from a newer
 * version, then applies pending migrations in one transaction. A damaged file is refused with
 * a StoreOpenError before anything is written to it.
 */
export function openDatabase(
  file: string,
  migrations: readonly Migration[] = defaultMigrations,
  nativeBinding?: string,
): Database {
  const isMemory = file === ':memory:';
  const existed = !isMemory && existsSync(file);
  if (!isMemory) mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  // Read before SQLite sees the file: a clean-close note is only good for this one open.
  const clean = existed ? takeCleanClose(file) : false;
  // On a full disk SQLite cannot make the -shm index a WAL database needs; in exclusive locking
  // mode it keeps that index in memory instead, so Drover opens (and reads) what it has and
  // answers writes with "disk full" until room returns. The folder lock already makes this
  // process the database's only user.
  const tight = !isMemory && isFolderFull(dirname(file)) && !existsSync(`${file}-shm`);
  if (existed) inspect(file, clean, migrations, nativeBinding, tight);
  let db: DroverDatabase;
  try {
    db = new DroverDatabase(
      file,
      nativeBinding ? { fileMustExist: existed, nativeBinding } : { fileMustExist: existed },
    );
  } catch (error) {
    throw refusal('unreadable', file, error);
  }
  try {
    if (tight) db.pragma('locking_mode = EXCLUSIVE');
    // SQLite gives the -wal and -shm files the main file's mode, so the main file is made private first.
    if (!isMemory) for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) makeFilePrivate(path);
    let version: number;
    try {
      version = db.pragma('user_version', { simple: true }) as number;
    } catch (error) {
      throw new StoreOpenError('corrupt', file, messageOf(error));
    }
    if (!isMemory) db.pragma('journal_mode = WAL');
    // In WAL mode NORMAL never corrupts the file; a power cut may lose the last commits, not the database.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations, version);
    if (!isMemory) db.trackCleanClose(file);
    return db;
  } catch (error) {
    db.close();
    // A first open that failed (a full disk, mostly) leaves nothing behind: an empty file it made
    // would read as a damaged database at every later start.
    if (!existed && !isMemory) for (const path of [file, `${file}-wal`, `${file}-shm`]) rmSync(path, { force: true });
    if (error instanceof StoreOpenError || error instanceof NoRoomError) throw error;
    throw refusal('corrupt', file, error);
  }
}

/** Why an open failed: a full disk is said as such (never "damaged"); anything else refuses the file. */
function refusal(reason: StoreOpenError['reason'], file: string, error: unknown): Error {
  if (isNoRoom(error, dirname(file))) return new NoRoomError(dirname(file), error);
  return new StoreOpenError(reason, file, messageOf(error));
}

/**
 * Everything that can refuse an existing file, done on a read-only connection: closing a
 * writable one would fold the write-ahead log into a file that is being refused, and delete
 * the log. A read-only connection changes neither (it may add the -shm index, which holds no data).
 */
function inspect(
  file: string,
  clean: boolean,
  migrations: readonly Migration[],
  nativeBinding: string | undefined,
  tight: boolean,
): void {
  refuseBeforeOpening(file);
  // A read-only connection still makes an empty -wal and the -shm index when they are missing;
  // those it made are removed again, so a refused folder is left exactly as it was found.
  const made = [`${file}-wal`, `${file}-shm`].filter((path) => !existsSync(path));
  let db: Database;
  try {
    // On a full disk with no -shm (a clean close removed it) a read-only connection cannot open a
    // WAL database at all; then it is read on a writable one in exclusive mode, which is safe
    // here: with no write-ahead log there is nothing a close could fold into the file.
    db = new BetterSqlite3(file, {
      readonly: !tight,
      fileMustExist: true,
      ...(nativeBinding ? { nativeBinding } : {}),
    });
    if (tight) db.pragma('locking_mode = EXCLUSIVE');
  } catch (error) {
    throw refusal('unreadable', file, error);
  }
  try {
    let version: number;
    try {
      // Reading the schema forces SQLite to parse the header: a file that is no database fails here.
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      version = db.pragma('user_version', { simple: true }) as number;
    } catch (error) {
      throw refusal('corrupt', file, error);
    }
    const latest = migrations.at(-1)?.version ?? 0;
    if (version > latest)
      throw new StoreOpenError('newer', file, `schema version ${version}, this build knows up to ${latest}`);
    let problem: string | null;
    try {
      problem = checkIntegrity(db, clean ? 'structure' : 'full');
    } catch (error) {
      if (isNoRoom(error, dirname(file))) throw new NoRoomError(dirname(file), error);
      problem = messageOf(error);
    }
    if (problem) throw new StoreOpenError('corrupt', file, problem);
  } finally {
    db.close();
    if (made.length === 2 && existsSync(`${file}-wal`) && statSync(`${file}-wal`).size === 0)
      for (const path of made) rmSync(path, { force: true });
  }
}

/** Damage SQLite itself would not report, or would repair by throwing data away: refused before it opens. */
function refuseBeforeOpening(file: string): void {
  // Drover never leaves an empty file (the first open writes the schema), so an empty one lost its data.
  if (statSync(file).size === 0 && !existsSync(`${file}-wal`))
    throw new StoreOpenError('corrupt', file, 'the file is empty');
  const wal = walHeaderProblem(`${file}-wal`);
  if (wal) throw new StoreOpenError('corrupt', file, wal);
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
