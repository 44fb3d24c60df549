// Reading a task's log (TaskLog writes it): its tail, a slice of it, and how many lines it holds.
import { open, stat } from 'node:fs/promises';

export interface LogTail {
  bytes: Buffer;
  totalBytes: number;
  truncated: boolean;
}

/** The last `maxBytes` of a log, without reading the rest; a missing log reads as empty. */
export async function readLogTail(path: string, maxBytes: number): Promise<LogTail> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return { bytes: Buffer.alloc(0), totalBytes: 0, truncated: false };
  }
  const length = Math.min(size, maxBytes);
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, size - length);
    return { bytes: bytes.subarray(0, bytesRead), totalBytes: size, truncated: size > length };
  } finally {
    await handle.close();
  }
}

/** A slice of a log from `fromByte` (at most `maxBytes`), or its last `maxBytes` when no offset is given. */
export async function readLogRange(
  path: string,
  fromByte: number | undefined,
  maxBytes: number,
): Promise<{ bytes: Buffer; fromByte: number; toByte: number; truncated: boolean }> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return { bytes: Buffer.alloc(0), fromByte: 0, toByte: 0, truncated: false };
  }
  let start = fromByte === undefined ? Math.max(0, size - maxBytes) : Math.min(fromByte, size);
  // A reader far behind skips ahead rather than pulling megabytes.
  if (size - start > maxBytes) start = size - maxBytes;
  const length = size - start;
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, start);
    return {
      bytes: bytes.subarray(0, bytesRead),
      fromByte: start,
      toByte: start + bytesRead,
      truncated: start > (fromByte ?? 0),
    };
  } finally {
    await handle.close();
  }
}

/** Read in pieces this size, so counting a multi-gigabyte log never holds more than one in memory. */
const NEWLINE_COUNT_CHUNK_BYTES = 1024 * 1024;

/**
 * Newlines counted so far per log. Logs only grow, so a model polling a busy task's output has
 * only the bytes written since its last read counted. The bytes just before the counted point
 * are kept and compared, so a log that was removed and written again is counted afresh. A few
 * dozen logs are remembered, the oldest dropped first.
 */
const counted = new Map<string, { endByte: number; count: number; last: Buffer }>();
const COUNTED_LOGS_MAX = 64;
const COUNTED_CHECK_BYTES = 64;

/** How many `\n` bytes the log holds before `endByte` (lines it holds before that point); a missing log has none. */
export async function countLogNewlines(path: string, endByte: number): Promise<number> {
  if (endByte <= 0) return 0;
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return 0;
  }
  const bytesBefore = async (end: number): Promise<Buffer> => {
    const from = Math.max(0, end - COUNTED_CHECK_BYTES);
    const buffer = Buffer.alloc(end - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return buffer.subarray(0, bytesRead);
  };
  try {
    const known = counted.get(path);
    const resume =
      known && known.endByte <= endByte && (await bytesBefore(known.endByte)).equals(known.last)
        ? known
        : { endByte: 0, count: 0 };
    const chunk = Buffer.alloc(Math.max(1, Math.min(NEWLINE_COUNT_CHUNK_BYTES, endByte - resume.endByte)));
    let count = resume.count;
    let position = resume.endByte;
    while (position < endByte) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, endByte - position), position);
      if (bytesRead === 0) break;
      const read = chunk.subarray(0, bytesRead);
      for (let at = read.indexOf(0x0a); at !== -1; at = read.indexOf(0x0a, at + 1)) count++;
      position += bytesRead;
    }
    counted.delete(path);
    counted.set(path, { endByte: position, count, last: await bytesBefore(position) });
    if (counted.size > COUNTED_LOGS_MAX) counted.delete(counted.keys().next().value!);
    return count;
  } finally {
    await handle.close();
  }
}
