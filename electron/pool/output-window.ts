/** The first room a window takes; it doubles as output arrives, up to its cap. */
const FIRST_ROOM_BYTES = 4096;

/**
 * The newest output of a task, bounded: appending past the cap drops the oldest bytes.
 * Bytes are copied into one ring of at most the cap, never kept as the chunks they came in:
 * a chunk held for seconds outlives V8's young generation and is freed only by a full GC,
 * so 50 chatty tasks grew the host by 40 MB of dead chunks before the first one ran (issue #18,
 * bench/lag.bench.ts). A copied chunk dies young, in the next scavenge.
 */
export class OutputWindow {
  readonly #cap: number;
  #ring: Buffer = Buffer.alloc(0);
  /** Where the oldest byte held is, in the ring. */
  #start = 0;
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
      this.#grow(this.#cap);
      chunk.copy(this.#ring, 0, chunk.length - this.#cap);
      this.#start = 0;
      this.#size = this.#cap;
      return;
    }
    this.#grow(Math.min(this.#cap, this.#size + chunk.length));
    const room = this.#ring.length;
    const end = (this.#start + this.#size) % room;
    const copied = chunk.copy(this.#ring, end);
    if (copied < chunk.length) chunk.copy(this.#ring, 0, copied);
    this.#size += chunk.length;
    if (this.#size > room) {
      this.#start = (this.#start + this.#size - room) % room;
      this.#size = room;
    }
  }

  /** Bytes seen in all, including those no longer held. */
  get totalBytes(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.#size;
  }

  /** A copy of the bytes held, oldest first (the ring goes on changing under a view). */
  bytes(): Buffer {
    const room = this.#ring.length;
    const head = this.#ring.subarray(this.#start, Math.min(room, this.#start + this.#size));
    const wrapped = this.#ring.subarray(0, this.#size - head.length);
    return Buffer.concat([head, wrapped], this.#size);
  }

  /** Makes room for `needed` bytes (at most the cap), doubling so a quiet task holds little. */
  #grow(needed: number): void {
    if (needed <= this.#ring.length) return;
    let room = Math.max(FIRST_ROOM_BYTES, this.#ring.length);
    while (room < needed) room *= 2;
    const ring = Buffer.allocUnsafeSlow(Math.min(this.#cap, room));
    this.bytes().copy(ring);
    this.#ring = ring;
    this.#start = 0;
  }
}
