import { net, protocol } from 'electron';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONTENT_SECURITY_POLICY } from '../host/static-files.js';

/** The renderer is served from drover://app/, an origin of our own, never file://. */
export const APP_SCHEME = 'drover';
export const APP_ORIGIN = `${APP_SCHEME}://app`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/**
 * Serves the built renderer folder. A path that could leave it (a `..` segment, plain or encoded,
 * a backslash, which Windows reads as a separator, a NUL) and a foreign host are not found; so is
 * a file that is not there.
 */
export function serveRenderer(rendererDir: string): void {
  const root = normalize(rendererDir);
  const notFound = () => new Response('Not found', { status: 404 });
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== 'app') return notFound();
    let relative: string;
    try {
      relative = decodeURIComponent(url.pathname).replace(/^\/+/, '') || 'index.html';
    } catch {
      return notFound();
    }
    if (/[\\\0]/.test(relative) || relative.split('/').includes('..')) return notFound();
    const file = normalize(join(root, relative));
    if (!file.startsWith(root + sep)) return notFound();
    let response: Response;
    try {
      response = await net.fetch(pathToFileURL(file).toString());
    } catch {
      return notFound();
    }
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(response.body, { status: response.status, headers });
  });
}

/** True only for the top frame of our own page. */
export function isAppUrl(url: string | undefined): boolean {
  return typeof url === 'string' && url.startsWith(`${APP_ORIGIN}/`);
}
