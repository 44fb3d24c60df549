/** An event of the contract as the servers pass it on: its name and its payload. */
export interface ContractEvent {
  name: string;
  payload: unknown;
}

/**
 * Holds what happens in one turn of the event loop and hands it over at the end of that turn, all
 * together and in order (setImmediate). Fifty busy tasks' output ticks come in one turn: a page
 * then gets one message and updates once, where a message each made it parse and lay out fifty
 * times (issue 18). `flush()` hands over what waits now: a server calls it before it answers a
 * call, so an answer never overtakes an event that happened before it.
 */
export class TurnBatch<T> {
  readonly #deliver: (items: T[]) => void;
  #items: T[] = [];
  #scheduled = false;
  #closed = false;

  constructor(deliver: (items: T[]) => void) {
    this.#deliver = deliver;
  }

  add(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.flush();
    });
  }

  flush(): void {
    if (this.#items.length === 0) return;
    const items = this.#items;
    this.#items = [];
    this.#deliver(items);
  }

  /** Drops what waits, and whatever comes later. */
  close(): void {
    this.#closed = true;
    this.#items = [];
  }
}
