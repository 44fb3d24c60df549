import { statfsSync } from 'node:fs';

/**
 * "No room left", said once for every writer: the file system's codes (a full disk, the person's
 * quota), SQLite's, and the contract's own code when a service already said so.
 */
const NO_ROOM_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', 'disk_full']);

/**
 * SQLite reports a failed write as SQLITE_IOERR_<step> whatever the cause, so the step alone
 * cannot tell a full disk from a failing one; at these steps the folder's free space decides.
 */
const WRITE_STEPS = new Set([
  'SQLITE_IOERR_WRITE',
  'SQLITE_IOERR_FSYNC',
  'SQLITE_IOERR_TRUNCATE',
  'SQLITE_IOERR_SHMSIZE',
  'SQLITE_IOERR_SHMMAP',
  'SQLITE_IOERR_MMAP',
]);

/** Fewer free bytes than this and the next page or log batch fails: the disk counts as full. */
export const FULL_BELOW_BYTES = 64 * 1024;

/** Free bytes on the folder's disk for this user; null when that cannot be told. */
export function freeBytes(folder: string): number | null {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/** Whether the folder's disk has (almost) no room; false when that cannot be told. */
export function isFolderFull(folder: string): boolean {
  const free = freeBytes(folder);
  return free !== null && free < FULL_BELOW_BYTES;
}

/** Whether a failure means there is no room left; a SQLite write step counts when the folder is full. */
export function isNoRoom(error: unknown, folder?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  if (NO_ROOM_CODES.has(code)) return true;
  return folder !== undefined && WRITE_STEPS.has(code) && isFolderFull(folder);
}

/** The words for a full disk, the same in the page's banner, REST's 507 and the log. */
export function fullMessage(folder: string): string {
  return `The disk holding ${folder} is full: output is not being saved. Free some space there and Drover resumes by itself; what was saved before is intact.`;
}

/** A failure to start for lack of room, carrying the code the start-up paths recognise. */
export class NoRoomError extends Error {
  readonly code = 'ENOSPC';

  constructor(folder: string, cause: unknown) {
    super(
      `The disk holding ${folder} is full, so Drover cannot start there. Free some space and start it again; nothing stored was changed.`,
      { cause },
    );
    this.name = 'NoRoomError';
  }
}

/** Why Drover could not start, when it is a full disk: said plainly instead of a stack trace; null for anything else. */
export function noRoomAtStart(error: unknown, folder: string): string | null {
  if (error instanceof NoRoomError) return error.message;
  return isNoRoom(error, folder) ? new NoRoomError(folder, error).message : null;
}
