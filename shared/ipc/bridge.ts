import type { Result } from './errors.js';

/**
 * What the Electron preload exposes to the page as the global `drover`: one function per request named in
 * the contract and one event feed limited to the contract's events. No raw channel access.
 */
export interface DroverBridge {
  readonly requests: Readonly<Record<string, (input: unknown) => Promise<Result<unknown>>>>;
  onEvent(listener: (name: string, payload: unknown) => void): () => void;
}

export const BRIDGE_KEY = 'drover';
export const REQUEST_CHANNEL_PREFIX = 'drover:request:';
/**
 * The one channel events reach the page on: each message is an array of `{ name, payload }`, the
 * events of one turn of the main process's event loop, in the order they happened (see
 * electron/ipc/turn-batch.ts). The preload passes on only the names the contract declares.
 */
export const EVENTS_CHANNEL = 'drover:events';
