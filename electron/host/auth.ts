import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Hex, so it never starts with a dash that a command line would read as an option. */
export function newToken(): string {
  return randomBytes(24).toString('hex');
}

export function tokensMatch(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** REST: `Authorization: Bearer TOKEN`. */
export function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * A browser always sends Origin on a WebSocket; it must be this host's own page.
 * Scripts that send none (Node, curl) are judged by the token alone.
 */
export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

/**
 * DNS rebinding: a page on evil.example whose name is made to resolve to 127.0.0.1 reaches this
 * port with `Host: evil.example:PORT`. Only our own names are served, so such a request is
 * refused before the token is even looked at. The host listens on 127.0.0.1 only, so [::1] is
 * not one of its names.
 */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const given = host.toLowerCase();
  return given === `127.0.0.1:${port}` || given === `localhost:${port}`;
}
