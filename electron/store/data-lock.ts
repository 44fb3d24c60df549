import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { z } from 'zod';
import { DATABASE_FILE } from './database.js';
import { MetaRepo } from './meta-repo.js';
import { makePrivate, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

/** Held for as long as a Drover has the data folder open. */
export const LOCK_FILE = 'drover.lock';
/** Where the owner describes itself, in the database's meta table, so a second Drover can name it. */
export const OWNER_KEY = 'owner';

export const FolderOwnerSchema = z.object({
  pid: z.number().int(),
  host: z.enum(['electron', 'headless']),
  startedAt: z.number().int(),
  /** The host's address without its token, once it listens. */
  address: z.string().nullable().optional(),
});
export type FolderOwner = z.infer<typeof FolderOwnerSchema>;

/** Another Drover has this data folder open; the message names the folder and that Drover. */
export class DataFolderBusyError extends Error {
  readonly dataDir: string;
  readonly owner: FolderOwner | null;

  constructor(dataDir: string, owner: FolderOwner | null) {
    super(
      `Another Drover is already using the data folder ${dataDir}${owner ? ` (${describeOwner(owner)})` : ''}. Quit it first, or give this one another data folder.`,
    );
    this.name = 'DataFolderBusyError';
    this.dataDir = dataDir;
    this.owner = owner;
  }
}

function describeOwner(owner: FolderOwner): string {
  const kind = owner.host === 'electron' ? 'the desktop app' : 'a headless host';
  const since = new Date(owner.startedAt).toISOString().replace('T', ' ').slice(0, 19);
  return `${kind}, pid ${owner.pid}, since ${since} UTC${owner.address ? `, at ${owner.address}` : ''}`;
}

export interface DataFolderLock {
  /** Lets the folder go; the OS also lets it go when the process ends, however it ends. */
  release(): void;
}

/**
 * Takes the data folder for this process, or throws DataFolderBusyError.
 *
 * The lock is SQLite's exclusive lock on a small file of its own: an OS lock (fcntl on unix,
 * LockFileEx on Windows) that dies with the process however it dies, that SQLite also enforces
 * between two connections of one process, and that no pid file can fake. It is taken before the
 * database is opened, so a second Drover never migrates or writes what the first one owns.
 */
export function lockDataFolder(dataDir: string, nativeBinding?: string): DataFolderLock {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = join(dataDir, LOCK_FILE);
  // Created private before SQLite opens it (SQLite would create it with the umask's 0644).
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  const lock: Database = new BetterSqlite3(file, nativeBinding ? { nativeBinding } : {});
  try {
    lock.pragma('busy_timeout = 0');
    lock.pragma('locking_mode = EXCLUSIVE');
    // An exclusive transaction takes the exclusive lock, and in this mode it is kept until the
    // connection closes. Nothing is written, so the lock is taken even on a full disk (Drover then
    // starts and says the disk is full, issue #12).
    lock.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new DataFolderBusyError(dataDir, readOwner(dataDir, nativeBinding));
    throw error;
  }
  // Once the folder is ours, and before anything in it is read: folders from earlier versions
  // were created readable by everyone (issue #12), and this is where each start fixes them.
  makePrivate(dataDir);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      lock.close();
    },
  };
}

/** The running owner's own description, read without taking any lock; null when it cannot be read. */
function readOwner(dataDir: string, nativeBinding?: string): FolderOwner | null {
  const file = join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) return null;
  let db: Database | undefined;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    const value = new MetaRepo(db).get(OWNER_KEY);
    const parsed = FolderOwnerSchema.safeParse(value ? JSON.parse(value) : null);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}
