import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { basename, extname, join, normalize, sep } from 'node:path';
import { PAGE_SCRIPT } from '../../shared/domain/page-script.js';

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
 * The page's one inline script (shared/domain/page-script.ts), as its policy names it: by the hash of
 * its text. The build puts the script in index.html and this source in the page's own policy.
 */
export const PAGE_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(PAGE_SCRIPT).digest('base64')}'`;

/**
 * The same policy the page declares in its meta tag, sent as a header too. Scripts come from the
 * page's origin, and inline only the one named by its hash. The terminal view (xterm.js) writes its
 * colours into <style> elements, and components not on the first screen bring their styles the same
 * way, so style elements may be inline; style attributes in markup may not.
 */
export const CONTENT_SECURITY_POLICY = `default-src 'none'; script-src 'self' ${PAGE_SCRIPT_SOURCE}; style-src 'self'; style-src-elem 'self' 'unsafe-inline'; style-src-attr 'none'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * The built renderer's files, named by a hash of their content (`assets/NAME-HASH.js`): a name
 * always means the same bytes, so each is read once and then answered from memory. A first open
 * asks for eight of them at once; from disk each took a stat, an open, reads and a close on
 * libuv's threads (a few milliseconds of the host's time for the page), from memory one write each.
 */
const ASSETS = 'assets';
/** Enough for every asset of a build (about 2 MB today) with room to grow; past it, files are read each time. */
const CACHE_MAX_BYTES = 32 * 1024 * 1024;

/** Serves the built renderer; anything outside its folder is not found. */
export class StaticFiles {
  readonly #root: string;
  readonly #cached = new Map<string, Buffer>();
  #cachedBytes = 0;

  constructor(root: string) {
    this.#root = root;
  }

  async serve(pathname: string, res: ServerResponse): Promise<void> {
    const relative = pathname === '/' ? 'index.html' : decodeURIComponentSafe(pathname).replace(/^\/+/, '');
    const file = normalize(join(this.#root, relative));
    if (relative.includes('\0') || (file !== this.#root && !file.startsWith(this.#root + sep))) return notFound(res);
    // Judged on the resolved path: `assets/%2e%2e/index.html` is the page, not an asset.
    const immutable = file.startsWith(join(this.#root, ASSETS) + sep);
    const cached = immutable ? this.#cached.get(file) : undefined;
    if (cached) return send(res, file, cached);
    try {
      const info = await stat(file);
      if (!info.isFile()) return notFound(res);
      if (!immutable || this.#cachedBytes + info.size > CACHE_MAX_BYTES) {
        res.writeHead(200, headers(file, info.size));
        createReadStream(file).pipe(res);
        return;
      }
      const body = await readFile(file);
      if (!this.#cached.has(file)) {
        this.#cached.set(file, body);
        this.#cachedBytes += body.length;
      }
      send(res, file, body);
    } catch {
      if (relative === 'index.html') {
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('The Drover interface has not been built yet: run `npm run build`, then reload.\n');
        return;
      }
      notFound(res);
    }
  }
}

function send(res: ServerResponse, file: string, body: Buffer): void {
  res.writeHead(200, headers(file, body.length));
  res.end(body);
}

function headers(file: string, size: number): OutgoingHttpHeaders {
  return {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': size,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Hashed assets may be cached; the page itself is always fetched fresh.
    'Cache-Control': basename(file) === 'index.html' ? 'no-store' : 'public, max-age=31536000, immutable',
  };
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
