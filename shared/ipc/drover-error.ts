import type { ErrorCode, IpcError } from './errors.js';

/**
 * Every failure that crosses the contract carries one of these codes (errors.ts makes its schema
 * of them). Listed here, free of zod: the page reads the host's frames with them (ws-frame-reader.ts).
 */
export const ERROR_CODES = [
  'invalid_input',
  'unknown_request',
  'not_found',
  'conflict',
  'unauthorized',
  /** The request named another host than this one (DNS rebinding, a misdirected proxy): refused before the token is read. */
  'misdirected',
  'unavailable',
  /** The disk holding Drover's data folder is full: nothing new is being saved. */
  'disk_full',
  /** A client asked for more at once than its fair share (too many requests in flight or queued). */
  'busy',
  /** A REST path that exists, called with a method it does not take (HTTP 405; the Allow header lists those it does). */
  'method_not_allowed',
  'disconnected',
  'internal',
] as const;

/**
 * Thrown by services and by the client; carries a code the transports can map (REST: HTTP status).
 * A module of its own, free of zod (the codes' schema is in errors.ts, which re-exports this): the
 * page's first script (renderer/src/boot.ts) opens the connection with it, and the page loads no
 * zod to open a session (issue 18: opening a big session).
 */
export class DroverError extends Error {
  readonly code: ErrorCode;
  readonly path: string | undefined;
  readonly issues: readonly { path: string; message: string }[] | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    detail: { path?: string; issues?: { path: string; message: string }[] } = {},
  ) {
    super(message);
    this.name = 'DroverError';
    this.code = code;
    this.path = detail.path;
    this.issues = detail.issues;
  }

  toJSON(): IpcError {
    const out: IpcError = { code: this.code, message: this.message };
    if (this.path !== undefined) out.path = this.path;
    if (this.issues !== undefined) out.issues = [...this.issues];
    return out;
  }

  static from(error: IpcError): DroverError {
    const detail: { path?: string; issues?: { path: string; message: string }[] } = {};
    if (error.path !== undefined) detail.path = error.path;
    if (error.issues !== undefined) detail.issues = error.issues;
    return new DroverError(error.code, error.message, detail);
  }
}
