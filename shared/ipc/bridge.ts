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
export const EVENT_CHANNEL_PREFIX = 'drover:event:';
