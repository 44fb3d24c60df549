import { net, protocol } from 'electron';
import { stat } from 'node:fs/promises';
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
    {
      scheme: APP_SCHEME,
      // codeCache: the page's compiled code is kept between starts (Chromium does so for http(s) only
      // unless a scheme asks), so the window opens faster from the second start on.
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

/**
 * A path segment the renderer's build can hold: letters, digits and `._-@+~` and spaces, not only
 * dots and spaces, and not ending in a dot or a space. An allow-list, because Windows reads more
 * into a name than a deny-list keeps up with: it drops a trailing dot or space (`index.html.`),
 * treats `...` like `..` in places, and opens alternate streams and devices through `:`.
 */
const SAFE_SEGMENT = /^[A-Za-z0-9._@+~ -]*[A-Za-z0-9_@+~-]$/;

/**
 * Serves the built renderer folder. A path that could leave it (a `..` segment, plain or encoded,
 * a backslash, which Windows reads as a separator, a NUL, any segment outside SAFE_SEGMENT) and a
 * foreign host are not found; so is a file that is not there, and a folder (Chromium's file loader
 * would answer it with a listing).
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
    if (!relative.split('/').every((segment) => SAFE_SEGMENT.test(segment))) return notFound();
    const file = normalize(join(root, relative));
    if (!file.startsWith(root + sep)) return notFound();
    const found = await stat(file).catch(() => null);
    if (!found?.isFile()) return notFound();
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
