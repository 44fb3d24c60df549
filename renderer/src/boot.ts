/**
 * What the page does before anything else: this module is the entry's first import, and the app
 * is a chunk of its own that main.ts imports after it, so its body runs while the app's code is
 * still being fetched and compiled. It opens the connection and sends the first requests (the
 * session list, and the first pages of the session the page opens on), and starts a worker that
 * warms the locale's date formats on another core: by the time the app is built, the answers are
 * waiting (issue 18: opening a big session).
 */
import { connectApi, createTransport } from './lib/api.js';
import { OpenPrefetch } from './lib/state/open-prefetch.js';
import { parseRoute } from './lib/route.js';
import { fontPlatform } from './lib/platform.js';

// Before the first layout: app.css picks this platform's monospace family (see --font-mono there).
document.documentElement.dataset.fonts = fontPlatform(navigator);

// Best effort, never waited on: a page whose worker cannot start makes its formatters itself.
try {
  const warm = new Worker(new URL('./lib/intl-warm.worker.ts', import.meta.url), { type: 'module', name: 'intl-warm' });
  warm.onerror = (event) => event.preventDefault();
} catch {
  /* no worker here */
}

export const transport = createTransport();
export const api = connectApi(transport);
export const prefetch = new OpenPrefetch(api);
prefetch.startSessions();
const opening = parseRoute(location.hash);
if (opening.name === 'session') prefetch.start(opening.sessionId);
