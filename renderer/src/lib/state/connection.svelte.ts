import type { ClientTransport, ConnectionState as LinkState } from '@shared/ipc/transport.js';

/**
 * Mirrors the transport's connection. A transport without `onState` (the Electron
 * bridge) is always open. After a drop, `onReconnect` listeners run once the link is
 * open again, so the views can reload what they may have missed.
 */
export class ConnectionState {
  readonly #transport: ClientTransport;
  readonly #reconnectListeners = new Set<() => void>();
  #state = $state<LinkState>('open');
  #dropped = $state(false);

  constructor(transport: ClientTransport) {
    this.#transport = transport;
    if (transport.onState) {
      const current = (transport as { state?: unknown }).state;
      this.#state = current === 'open' || current === 'closed' ? current : 'connecting';
    }
  }

  get state(): LinkState {
    return this.#state;
  }

  get isOpen(): boolean {
    return this.#state === 'open';
  }

  /** True from a drop until the link is open again (its retries included). */
  get dropped(): boolean {
    return this.#dropped;
  }

  /** Human words for the state; steady while retries go by after a drop. */
  get label(): string {
    if (this.#state === 'open') return 'Connected';
    return this.#dropped ? 'Disconnected — retrying' : 'Connecting…';
  }

  /** Runs `listener` each time the link opens again after a drop. Returns an unsubscribe. */
  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  start(): () => void {
    if (!this.#transport.onState) return () => {};
    return this.#transport.onState((next) => this.#set(next));
  }

  #set(next: LinkState): void {
    if (next === this.#state) return;
    this.#state = next;
    if (next === 'closed') this.#dropped = true;
    if (next === 'open' && this.#dropped) {
      this.#dropped = false;
      for (const listener of [...this.#reconnectListeners]) listener();
    }
  }
}
