import type { Contract, EventName, PayloadOf } from '../../shared/ipc/define.js';

type Listener = (name: string, payload: unknown) => void;

/**
 * Carries the contract's events from services to every connected transport. Payloads
 * are checked against the contract on the way out, so a service cannot emit a shape
 * the clients do not expect.
 */
export class EventBus<C extends Contract> {
  readonly #contract: C;
  readonly #listeners = new Set<Listener>();

  constructor(contract: C) {
    this.#contract = contract;
  }

  emit<E extends EventName<C>>(name: E, payload: PayloadOf<C, E>): void {
    const def = this.#contract.events[name];
    if (!def) throw new Error(`Unknown event "${name}"`);
    const checked = def.payload.parse(payload);
    for (const listener of this.#listeners) {
      try {
        listener(name, checked);
      } catch (error) {
        // One broken subscriber (a closed socket) must not stop the others hearing the event.
        console.error(`[drover] event listener failed for ${name}:`, error);
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
