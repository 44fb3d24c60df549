import type { ClientTransport, ServerEndpoint } from './transport.js';

/**
 * Connects a client straight to a server endpoint, with a structured clone on each
 * crossing so tests see exactly what a real transport would carry.
 */
export function connectInMemory(endpoint: ServerEndpoint): ClientTransport {
  const copy = <T>(value: T): T => (value === undefined ? value : structuredClone(value));
  return {
    async call(name, input) {
      return copy(await endpoint.handle(name, copy(input)));
    },
    subscribe(listener) {
      return endpoint.subscribe((name, payload) => listener(name, copy(payload)));
    },
  };
}
