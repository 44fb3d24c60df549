import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The on-disk record of a task's output: every raw byte, in order. Writes report
 * backpressure so the producer can be paused instead of buffering without bound.
 */
export class TaskLog {
  readonly path: string;
  readonly #stream: WriteStream;
  #failed: Error | null = null;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    this.#stream = createWriteStream(path, { flags: 'a' });
    this.#stream.on('error', (error) => {
      this.#failed = error;
    });
  }

  /** False when the caller should pause until `onDrain`. */
  write(chunk: Buffer): boolean {
    if (this.#failed) return true;
    return this.#stream.write(chunk);
  }

  onDrain(listener: () => void): void {
    this.#stream.once('drain', listener);
  }

  get error(): Error | null {
    return this.#failed;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stream.closed || this.#stream.destroyed) return resolve();
      this.#stream.end(() => resolve());
      this.#stream.once('error', () => resolve());
    });
  }
}

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
