/**
 * A counting semaphore: at most `max` jobs run at once, the rest wait their turn in order, and
 * when `maxWaiting` already wait a new job is refused at once. A finished job hands its slot
 * straight to the next waiter, so the count never dips and a newcomer cannot jump the queue.
 */
export class Slots {
  readonly #max: number;
  readonly #maxWaiting: number;
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(max: number, maxWaiting = Number.POSITIVE_INFINITY) {
    this.#max = max;
    this.#maxWaiting = maxWaiting;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `job` when a slot is free; throws what `refuse` makes when the queue is already full. */
  async run<T>(job: () => Promise<T>, refuse: () => Error = () => new Error('Too many jobs are waiting')): Promise<T> {
    if (this.#running >= this.#max) {
      if (this.#waiting.length >= this.#maxWaiting) throw refuse();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await job();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
