import { dirname } from 'node:path';
import { DroverError } from '../../shared/ipc/errors.js';
import { fullMessage, isNoRoom } from './no-room.js';

/** The words for a damaged database, at open and at run time alike. */
export function damagedDatabaseAdvice(databaseFile: string): string {
  return `Quit Drover and move ${databaseFile} aside (with its -wal and -shm files, if any); Drover then starts with a new database, and the old file stays as it is for recovery.`;
}

/**
 * Turns a failure from SQLite (or a full disk under it) into an error the person can act on,
 * naming the file or folder. Returns null for anything else, which stays an internal error.
 */
export function sqliteProblem(error: unknown, databaseFile: string): DroverError | null {
  const code = codeOf(error);
  if (code === null) return null;
  const folder = dirname(databaseFile);
  if (isNoRoom(error, folder)) return new DroverError('disk_full', fullMessage(folder));
  if (!code.startsWith('SQLITE_')) return null;
  const detail = error instanceof Error ? error.message : code;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new DroverError(
      'unavailable',
      `Drover's database ${databaseFile} is damaged (${detail}). ${damagedDatabaseAdvice(databaseFile)}`,
    );
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new DroverError(
      'unavailable',
      `Drover cannot write to its database ${databaseFile}: the file or its disk is read-only (${detail}). Nothing was changed; make it writable again and retry.`,
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new DroverError(
      'unavailable',
      `Drover cannot open its database ${databaseFile} (${detail}); check that the folder ${folder} is still there and writable.`,
    );
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new DroverError(
      'unavailable',
      `Drover could not read or write its database ${databaseFile}: the disk reported an error (${detail}). The change was not saved; check the disk (it may have turned read-only or been removed).`,
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new DroverError(
      'unavailable',
      `Drover's database ${databaseFile} is busy with another change; try again in a moment.`,
    );
  }
  return null;
}

function codeOf(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}
