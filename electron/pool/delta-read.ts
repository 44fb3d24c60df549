import { open, stat } from 'node:fs/promises';

/** How far before a read's start an escape sequence that spans it is looked for, and how far past its end one is completed. */
const SEQUENCE_REACH_BYTES = 4_096;
const ESC = 0x1b;

export interface DeltaRead {
  /** Whole characters and whole escape sequences only. */
  bytes: Buffer;
  /** Where the bytes start: the asked offset, moved past a character or sequence it fell inside. */
  from: number;
  /** Where the next read starts. */
  next: number;
  /** The log's size when read. */
  size: number;
}

/**
 * Reads at most about `maxBytes` of a log from `from`, never starting or ending inside a UTF-8
 * character or an escape sequence: a start inside one moves past it, an end inside one moves
 * back before it (so the next read gets it whole), or past it when nothing else would be read.
 * `finished`: the log grows no more, so a cut sequence at its very end is returned as it is.
 */
export async function readDelta(path: string, from: number, maxBytes: number, finished: boolean): Promise<DeltaRead> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return { bytes: Buffer.alloc(0), from: 0, next: 0, size: 0 };
  }
  const asked = Math.min(Math.max(0, from), size);
  const windowStart = Math.max(0, asked - SEQUENCE_REACH_BYTES);
  const windowEnd = Math.min(size, asked + maxBytes + SEQUENCE_REACH_BYTES);
  const buffer = await readRange(path, windowStart, windowEnd - windowStart);
  const base = windowStart;
  const available = base + buffer.length;
  const start = safeStart(buffer, asked - base) + base;
  let end = Math.min(start + maxBytes, available);
  if (!(finished && end === size)) end = safeEnd(buffer, start - base, end - base) + base;
  return { bytes: buffer.subarray(start - base, end - base), from: start, next: end, size };
}

async function readRange(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, position);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** Bytes a UTF-8 character takes, from its lead byte (1 for anything that is not a lead). */
function charLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc2) return 2;
  return 1;
}

/** The first position at or after `at` that is neither inside a character nor inside an escape sequence. */
export function safeStart(buffer: Buffer, at: number): number {
  let start = at;
  // Inside a character only when a lead byte within three bytes before starts one that spans here
  // (a stray continuation byte, from Latin-1 text say, is a character of its own and is kept).
  for (let lead = at - 1; lead >= Math.max(0, at - 3); lead--) {
    if (isContinuation(buffer[lead]!)) continue;
    const end = lead + charLength(buffer[lead]!);
    if (end > at && buffer.subarray(lead + 1, Math.min(end, buffer.length)).every(isContinuation)) start = end;
    break;
  }
  // (lastIndexOf counts a negative offset from the end, so a start at 0 looks no further.)
  const escape = start > 0 ? buffer.lastIndexOf(ESC, start - 1) : -1;
  if (escape >= 0) {
    const end = sequenceEnd(buffer, escape);
    if (end !== null && end > start) start = end;
  }
  return start;
}

/**
 * The last position at or before `at` (and after `start`) that cuts no character or sequence in
 * two; when that would leave nothing, the first such position after `at` within the buffer.
 */
export function safeEnd(buffer: Buffer, start: number, at: number): number {
  let end = at;
  // A character cut in two: end before its lead byte.
  let lead = end - 1;
  while (lead > start && lead > end - 4 && isContinuation(buffer[lead]!)) lead--;
  if (lead >= start && lead < end && lead + charLength(buffer[lead]!) > end) end = lead;
  // An escape sequence left open: end before it (again, for a string whose terminator was the one cut).
  while (end > start) {
    const escape = buffer.lastIndexOf(ESC, end - 1);
    if (escape < start || sequenceEnd(buffer.subarray(0, end), escape) !== null) break;
    end = escape;
  }
  if (end > start) return end;
  // Nothing whole fits: take the one character or sequence that starts here, whole; a sequence
  // longer than the window (a clipboard write, an image) is cut where the read ends.
  if (buffer[start] === ESC) return sequenceEnd(buffer, start) ?? at;
  return Math.min(start + charLength(buffer[start] ?? 0), buffer.length);
}

/**
 * Where the escape sequence starting at `at` ends (one past its last byte), or null when the
 * buffer ends first. CSI ends at its final byte; OSC, DCS and the other strings at BEL or ST;
 * the rest after their intermediate bytes and one final byte.
 */
export function sequenceEnd(buffer: Uint8Array, at: number): number | null {
  const kind = buffer[at + 1];
  if (kind === undefined) return null;
  if (kind === 0x5b) {
    for (let i = at + 2; i < buffer.length; i++) {
      const byte = buffer[i]!;
      if (byte >= 0x40 && byte <= 0x7e) return i + 1;
      if (byte < 0x20 || byte > 0x3f) return i; // malformed: it ends where it stops being a CSI
    }
    return null;
  }
  // OSC ], DCS P, SOS X, PM ^, APC _: a string ended by BEL (OSC) or ESC \, or cut short by a line
  // end (so a stray ESC ] cannot swallow the rest of the log).
  if (kind === 0x5d || kind === 0x50 || kind === 0x58 || kind === 0x5e || kind === 0x5f) {
    for (let i = at + 2; i < buffer.length; i++) {
      if (buffer[i] === 0x07) return i + 1;
      if (buffer[i] === 0x0a || buffer[i] === 0x0d) return i;
      if (buffer[i] === ESC) {
        if (i + 1 >= buffer.length) return null;
        return buffer[i + 1] === 0x5c ? i + 2 : i;
      }
    }
    return null;
  }
  let i = at + 1;
  while (i < buffer.length && buffer[i]! >= 0x20 && buffer[i]! <= 0x2f) i++;
  return i < buffer.length ? i + 1 : null;
}
