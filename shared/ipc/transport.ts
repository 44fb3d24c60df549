import type { Result } from './errors.js';

export type ConnectionState = 'connecting' | 'open' | 'closed';

/** The client half of any transport: Electron's preload bridge, a WebSocket, or the in-memory pair. */
export interface ClientTransport {
  call(name: string, input: unknown): Promise<Result<unknown>>;
  /** Every contract event, in order. Returns an unsubscribe function. */
  subscribe(listener: (name: string, payload: unknown) => void): () => void;
  /** Transports that can drop (WebSocket) report their state; the others are always open. */
  onState?(listener: (state: ConnectionState) => void): () => void;
}

/** What a server side needs from the app: answer calls, and a feed of events to forward. */
export interface ServerEndpoint {
  handle(name: string, input: unknown): Promise<Result<unknown>>;
  subscribe(listener: (name: string, payload: unknown) => void): () => void;
}
