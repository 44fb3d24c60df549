import { readdir, readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as E from 'electron';
import type { FakeApp } from './app.js';

type ProtocolHandler = Parameters<E.Protocol['handle']>[1];

const MIME: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** protocol: privileged schemes only before ready (Electron ignores them later), one handler per scheme. */
export class FakeProtocol implements Pick<
  E.Protocol,
  'registerSchemesAsPrivileged' | 'handle' | 'unhandle' | 'isProtocolHandled'
> {
  readonly privileged: E.CustomScheme[] = [];
  readonly #handlers = new Map<string, ProtocolHandler>();
  readonly #app: FakeApp;

  constructor(app: FakeApp) {
    this.#app = app;
  }

  registerSchemesAsPrivileged(customSchemes: E.CustomScheme[]): void {
    if (this.#app.isReady())
      throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
    this.privileged.push(...customSchemes);
  }

  handle(scheme: string, handler: ProtocolHandler): void {
    if (!this.#app.isReady()) throw new Error('protocol.handle may be called only after the app is ready');
    if (this.#handlers.has(scheme)) throw new Error(`Failed to register protocol: ${scheme}`);
    this.#handlers.set(scheme, handler);
  }

  unhandle(scheme: string): void {
    this.#handlers.delete(scheme);
  }

  isProtocolHandled(scheme: string): boolean {
    return this.#handlers.has(scheme);
  }

  /** What the page's request for `url` gets (a scheme nobody handles fails, as in Chromium). */
  async request(url: string): Promise<Response> {
    const scheme = url.slice(0, url.indexOf(':'));
    const handler = this.#handlers.get(scheme);
    if (!handler) throw new Error('net::ERR_UNKNOWN_URL_SCHEME');
    return handler(new Request(url));
  }
}

/** net.fetch for file: URLs (what Drover's protocol handler reads), and the network for the rest. */
export const fakeNet = {
  async fetch(
    input: string | Request,
    init?: RequestInit & { bypassCustomProtocolHandlers?: boolean },
  ): Promise<Response> {
    const url = typeof input === 'string' ? input : input.url;
    if (!url.startsWith('file:')) return fetch(input, init);
    const path = fileURLToPath(url);
    // Chromium's file loader fails the fetch for a missing file, and answers a folder with a listing of it.
    const found = await stat(path).catch(() => null);
    if (!found) throw new TypeError('net::ERR_FILE_NOT_FOUND');
    if (found.isDirectory()) {
      const names = await readdir(path);
      return new Response(
        `<!doctype html><title>Index of ${path}</title>${names.map((name) => `<a>${name}</a>`).join('')}`,
        {
          status: 200,
          headers: { 'Content-Type': 'text/html' },
        },
      );
    }
    const body = await readFile(path);
    return new Response(body, {
      status: 200,
      headers: { 'Content-Type': MIME[extname(path)] ?? 'application/octet-stream' },
    });
  },
} satisfies Pick<E.Net, 'fetch'>;
