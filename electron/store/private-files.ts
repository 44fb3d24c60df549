import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Transcripts, task output and settings are the person's own: nobody else on the machine may
 * read them. Every file Drover creates in its data folder gets PRIVATE_FILE_MODE, every folder
 * PRIVATE_DIR_MODE (issue #12).
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** How deep the data folder goes: dataDir/sessions/<session>/<task>/output.log, with room to spare. */
const MAX_DEPTH = 8;

/** Permission bits are meaningless on Windows (the profile folder's ACL protects the data). */
const HAS_MODES = process.platform !== 'win32';

/**
 * What in a data folder is Drover's own: its files at the top, and the sessions tree (transcript
 * logs and task folders). Anything else a person keeps there (the folder may be one they chose)
 * is none of Drover's business and is never touched.
 */
const OWN_TOP_LEVEL =
  /^(drover\.sqlite(-wal|-shm|\.clean)?|drover\.lock|settings\.json(\.unreadable-\d+)?|secrets\.json|sessions)$/;

/**
 * Makes the data folder and Drover's own entries in it private, once at start, for folders
 * created by earlier versions (0755 folders, 0644 files): only the group's and others' bits are
 * taken away, nothing else changes. Symbolic links are neither followed nor changed, so a link
 * cannot aim the walk at a file elsewhere. Returns how many entries were changed.
 */
export function makePrivate(dataDir: string): number {
  if (!HAS_MODES) return 0;
  let changed = 0;
  try {
    const stat = lstatSync(dataDir);
    if (!stat.isDirectory()) return 0;
    changed += chmodIfNeeded(dataDir, stat.mode);
  } catch {
    return 0;
  }
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return changed;
  }
  for (const name of names) if (OWN_TOP_LEVEL.test(name)) changed += fix(join(dataDir, name), 1);
  return changed;
}

function fix(path: string, depth: number): number {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return 0; // gone meanwhile (a task folder cleared as we walk): nothing to protect
  }
  let changed = 0;
  if (stat.isDirectory()) {
    changed += chmodIfNeeded(path, stat.mode);
    if (depth >= MAX_DEPTH) return changed;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return changed;
    }
    for (const name of names) changed += fix(join(path, name), depth + 1);
  } else if (stat.isFile()) {
    changed += chmodIfNeeded(path, stat.mode);
  }
  return changed;
}

/** Takes away the group's and others' bits; the owner's (an executable bit, say) stay as they were. */
function chmodIfNeeded(path: string, mode: number): number {
  const wanted = mode & 0o7700;
  if ((mode & 0o7777) === wanted) return 0;
  try {
    chmodSync(path, wanted);
    return 1;
  } catch {
    return 0; // not ours to change (another owner): the walk goes on
  }
}

/** Sets a file Drover just created to PRIVATE_FILE_MODE (no-op on Windows). */
export function makeFilePrivate(file: string): void {
  if (HAS_MODES) chmodSync(file, PRIVATE_FILE_MODE);
}

/**
 * Replaces `file` with `data` so that a failed save (a full disk, a crash) never damages the
 * file already there: the bytes go to a private temporary file in the same folder, are flushed
 * to disk, and only then renamed over it. The temporary file is removed on failure.
 */
export function writePrivateFileAtomic(file: string, data: string | Uint8Array): void {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', PRIVATE_FILE_MODE);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(dirname(file));
}

/** Makes the rename itself durable; folders cannot be opened this way on Windows, where NTFS journals it. */
function syncFolder(dir: string): void {
  if (process.platform === 'win32') return;
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The new file is in place; only its durability across a power cut is less certain.
  }
}
