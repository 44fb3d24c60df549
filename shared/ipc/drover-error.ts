import type { ErrorCode, IpcError } from './errors.js';

/**
 * Thrown by services and by the client; carries a code the transports can map (REST: HTTP status).
 * A module of its own, free of zod (the codes' schema is in errors.ts, which re-exports this): the
 * page's first script (renderer/src/boot.ts) opens the connection with it, and runs before zod has
 * been evaluated (issue 18: opening a big session).
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
