import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/**
 * The same policy the page declares in its meta tag, sent as a header too. The terminal view
 * (xterm.js) writes its colours into <style> elements, so style elements may be inline; style
 * attributes in markup may not, and scripts never.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; style-src-elem 'self' 'unsafe-inline'; style-src-attr 'none'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Serves the built renderer; anything outside its folder is not found. */
export async function serveStatic(root: string, pathname: string, res: ServerResponse): Promise<void> {
  const relative = pathname === '/' ? 'index.html' : decodeURIComponentSafe(pathname).replace(/^\/+/, '');
  const file = normalize(join(root, relative));
  if (relative.includes('\0') || (file !== root && !file.startsWith(root + sep))) return notFound(res);
  try {
    const info = await stat(file);
    if (!info.isFile()) return notFound(res);
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      // Hashed assets may be cached; the page itself is always fetched fresh.
      'Cache-Control': relative === 'index.html' ? 'no-store' : 'public, max-age=31536000, immutable',
    });
    createReadStream(file).pipe(res);
  } catch {
    if (relative === 'index.html') {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('The Drover interface has not been built yet: run `npm run build`, then reload.\n');
      return;
    }
    notFound(res);
  }
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('Not found\n');
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return '\0';
  }
}
