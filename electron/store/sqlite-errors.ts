import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DroverError } from '../../shared/ipc/errors.js';

/** Error codes of the file system that mean "no room left" (a full disk, or the person's quota). */
const NO_SPACE_ERRNOS = new Set(['ENOSPC', 'EDQUOT']);

/**
 * SQLite reports a failed write as SQLITE_IOERR_<step> whatever the cause, so the step alone
 * cannot tell a full disk from a failing one; these are the steps where a full disk shows up,
 * and for them the folder's free space decides.
 */
const WRITE_STEPS = new Set([
  'SQLITE_IOERR_WRITE',
  'SQLITE_IOERR_FSYNC',
  'SQLITE_IOERR_TRUNCATE',
  'SQLITE_IOERR_SHMSIZE',
  'SQLITE_IOERR_SHMMAP',
  'SQLITE_IOERR_MMAP',
]);

/** Fewer free bytes than this and the next page write fails: counted as full. */
const FULL_BELOW_BYTES = 64 * 1024;

/** The message every "no room" answer carries; the pool and logs can say the same words. */
export function diskFullMessage(folder: string): string {
  return `The disk holding ${folder} is full: output is not being saved, and neither was this change. Free some space there and Drover resumes by itself; what was saved before is intact.`;
}

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
  if (NO_SPACE_ERRNOS.has(code) || code === 'SQLITE_FULL') return new DroverError('disk_full', diskFullMessage(folder));
  if (!code.startsWith('SQLITE_')) return null;
  const detail = error instanceof Error ? error.message : code;
  if (WRITE_STEPS.has(code) && isFolderFull(folder)) return new DroverError('disk_full', diskFullMessage(folder));
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new DroverError('unavailable', `Drover's database ${databaseFile} is damaged (${detail}). ${damagedDatabaseAdvice(databaseFile)}`);
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new DroverError('unavailable', `Drover cannot write to its database ${databaseFile}: the file or its disk is read-only (${detail}). Nothing was changed; make it writable again and retry.`);
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new DroverError('unavailable', `Drover cannot open its database ${databaseFile} (${detail}); check that the folder ${folder} is still there and writable.`);
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new DroverError('unavailable', `Drover could not read or write its database ${databaseFile}: the disk reported an error (${detail}). The change was not saved; check the disk (it may have turned read-only or been removed).`);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new DroverError('unavailable', `Drover's database ${databaseFile} is busy with another change; try again in a moment.`);
  }
  return null;
}

function codeOf(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}

/** Whether the folder's disk has no room left; false when that cannot be told. */
function isFolderFull(folder: string): boolean {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize < FULL_BELOW_BYTES;
  } catch {
    return false;
  }
}
