/**
 * The newest output of a task, bounded: appending past the cap drops the oldest bytes.
 * Chunks are kept as given (no copying on append) and trimmed from the front.
 */
export class OutputWindow {
  readonly #cap: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #total = 0;

  constructor(capBytes: number) {
    if (!(capBytes > 0)) throw new Error('the output window needs a positive size');
    this.#cap = capBytes;
  }

  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    if (chunk.length >= this.#cap) {
      this.#chunks = [chunk.subarray(chunk.length - this.#cap)];
      this.#size = this.#cap;
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.#cap) {
      const first = this.#chunks[0]!;
      const excess = this.#size - this.#cap;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }

  /** Bytes seen in all, including those no longer held. */
  get totalBytes(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.#size;
  }

  bytes(): Buffer {
    if (this.#chunks.length !== 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }
}
