import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { writePrivateFileAtomic } from './private-files.js';

/**
 * How the database is checked at open (issue #12).
 *
 * `PRAGMA quick_check` reads every page: about 65-90 ms for a 118 MB database with a warm
 * cache here, ~180 ms cold. That is paid only when the file may have changed outside Drover:
 * after a crash, or when the file differs from the fingerprint the last clean close left
 * (a different size, inode or modification time). When the file is exactly as Drover left it,
 * only the schema and the root page of every table are read (well under a millisecond).
 */
export type CheckDepth = 'full' | 'structure';

/** Beside the database; written after a clean close, removed at the next open. */
export const CLEAN_CLOSE_SUFFIX = '.clean';

/** Lets SQLite read the file through memory mapping while it checks: a third faster than read() calls. */
const CHECK_MMAP_BYTES = 256 * 1024 * 1024;

/** How many problems are named in the refusal; the first ones say enough. */
const PROBLEMS_SHOWN = 3;

/** Returns a description of the damage found, or null when the database is intact. */
export function checkIntegrity(db: Database, depth: CheckDepth): string | null {
  if (depth === 'structure') return checkStructure(db);
  db.pragma(`mmap_size = ${CHECK_MMAP_BYTES}`);
  try {
    const rows = db.pragma(`quick_check(${PROBLEMS_SHOWN})`, { simple: false }) as { quick_check: string }[];
    // Each answer may hold several lines, headed by a banner naming the schema ("*** in database main ***").
    const problems = rows
      .flatMap((row) => row.quick_check.split('\n'))
      .filter((line) => line !== 'ok' && line.trim() !== '' && !line.startsWith('***'))
      .slice(0, PROBLEMS_SHOWN);
    return problems.length > 0 ? problems.join('; ') : null;
  } finally {
    // Mapped pages turn a disk error at run time into SIGBUS, a crash; ordinary reads report it.
    db.pragma('mmap_size = 0');
  }
}

function checkStructure(db: Database): string | null {
  const schema = db.pragma('quick_check(sqlite_schema)', { simple: true }) as string;
  if (schema !== 'ok') return schema;
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0").all() as {
    name: string;
  }[];
  // Reading one row reads the table's root page, where damage breaks every query of that table.
  for (const { name } of tables) db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}" LIMIT 1`).all();
  return null;
}

interface Fingerprint {
  size: string;
  mtimeNs: string;
  ino: string;
}

function fingerprintOf(file: string): Fingerprint {
  const stat = statSync(file, { bigint: true });
  return { size: String(stat.size), mtimeNs: String(stat.mtimeNs), ino: String(stat.ino) };
}

function hasWalContent(file: string): boolean {
  return existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 0;
}

/**
 * Whether the last run closed this file cleanly and nothing touched it since. The note is
 * removed here, so a run that crashes leaves none and the next open checks in full.
 */
export function takeCleanClose(file: string): boolean {
  const note = `${file}${CLEAN_CLOSE_SUFFIX}`;
  let recorded: Partial<Fingerprint>;
  try {
    recorded = JSON.parse(readFileSync(note, 'utf8')) as Partial<Fingerprint>;
  } catch {
    return false;
  }
  rmSync(note, { force: true });
  if (hasWalContent(file)) return false;
  const now = fingerprintOf(file);
  return recorded.size === now.size && recorded.mtimeNs === now.mtimeNs && recorded.ino === now.ino;
}

/** After the last connection closed (SQLite has folded the WAL into the file): note how it was left. */
export function recordCleanClose(file: string): void {
  try {
    if (hasWalContent(file)) return;
    writePrivateFileAtomic(`${file}${CLEAN_CLOSE_SUFFIX}`, JSON.stringify(fingerprintOf(file)));
  } catch {
    // Without the note the next open simply checks the whole file.
  }
}

const WAL_HEADER_BYTES = 32;
const WAL_MAGIC_LITTLE = 0x377f0682;
const WAL_MAGIC_BIG = 0x377f0683;

/**
 * SQLite treats a WAL whose header is broken as empty and overwrites it with the next write,
 * so the commits in it would vanish without a word. Such a WAL is damage, refused before opening.
 */
export function walHeaderProblem(walFile: string): string | null {
  if (!existsSync(walFile)) return null;
  const header = Buffer.alloc(WAL_HEADER_BYTES);
  const fd = openSync(walFile, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, WAL_HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  // Shorter than a header: no commit ever reached it (the header is written with the first frame).
  if (read < WAL_HEADER_BYTES) return null;
  const magic = header.readUInt32BE(0);
  if (magic !== WAL_MAGIC_LITTLE && magic !== WAL_MAGIC_BIG)
    return `its write-ahead log ${walFile} has a damaged header`;
  const [s1, s2] = walChecksum(header.subarray(0, 24), magic === WAL_MAGIC_BIG);
  if (s1 !== header.readUInt32BE(24) || s2 !== header.readUInt32BE(28))
    return `its write-ahead log ${walFile} has a damaged header`;
  return null;
}

/** SQLite's WAL checksum (wal.c, walChecksumBytes) over 32-bit words in the order the magic names. */
function walChecksum(bytes: Buffer, bigEndian: boolean): [number, number] {
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < bytes.length; i += 8) {
    const a = bigEndian ? bytes.readUInt32BE(i) : bytes.readUInt32LE(i);
    const b = bigEndian ? bytes.readUInt32BE(i + 4) : bytes.readUInt32LE(i + 4);
    s1 = (s1 + a + s2) >>> 0;
    s2 = (s2 + b + s1) >>> 0;
  }
  return [s1, s2];
}
