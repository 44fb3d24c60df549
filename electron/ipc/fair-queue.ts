import { DroverError } from '../../shared/ipc/errors.js';
import { Slots } from '../core/slots.js';

/** Requests one connection may have running at once, unless the host is told otherwise. */
export const DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION = 16;
/** Requests one connection may have waiting behind those; one more is answered 'busy'. */
export const MAX_QUEUED_PER_CONNECTION = 256;

export interface FairQueueOptions {
  maxInFlight?: number | undefined;
  maxQueued?: number | undefined;
}

/**
 * One connection's share of the host: at most `maxInFlight` of its requests run at once, the
 * next `maxQueued` wait their turn in order, and any beyond that are refused at once with
 * 'busy'. A client that floods therefore holds a bounded amount of the host's memory and time,
 * and its flood cannot push other connections' requests behind its own.
 */
export class FairQueue {
  readonly #slots: Slots;
  readonly #maxInFlight: number;
  readonly #maxQueued: number;

  constructor(options: FairQueueOptions = {}) {
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION;
    this.#maxQueued = options.maxQueued ?? MAX_QUEUED_PER_CONNECTION;
    this.#slots = new Slots(this.#maxInFlight, this.#maxQueued);
  }

  get inFlight(): number {
    return this.#slots.running;
  }

  get queued(): number {
    return this.#slots.waiting;
  }

  /** Runs `work` when this connection's turn comes; throws DroverError('busy') when its queue is full. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.#slots.run(
      work,
      () =>
        new DroverError(
          'busy',
          `Too many requests at once on this connection: ${this.#maxInFlight} run at a time and ${this.#maxQueued} may wait; wait for answers before sending more`,
        ),
    );
  }
}

/** Each connection (socket) gets its own queue, forgotten with the socket. */
export class FairQueues<K extends object> {
  readonly #queues = new WeakMap<K, FairQueue>();
  readonly #options: FairQueueOptions;

  constructor(options: FairQueueOptions = {}) {
    this.#options = options;
  }

  for(connection: K): FairQueue {
    let queue = this.#queues.get(connection);
    if (!queue) {
      queue = new FairQueue(this.#options);
      this.#queues.set(connection, queue);
    }
    return queue;
  }
}
