/**
 * What the page does before anything else: this module is the entry's first import, and the app
 * is a chunk of its own that main.ts imports after it, so its body runs while the app's code is
 * still being fetched and compiled. It opens the connection and sends the first requests (the
 * session list, and the first pages of the session the page opens on), and, where cores are to
 * spare, has a worker read the locale's date and number data in (shared/domain/intl-warm.ts): by
 * the time the app is built, the answers are waiting (issue 18: opening a big session).
 */
import { connectApi, createTransport } from './lib/api.js';
import { OpenPrefetch } from './lib/state/open-prefetch.js';
import { parseRoute } from './lib/route.js';
import { fontPlatform } from './lib/platform.js';
import { warmsInWorker } from '@shared/domain/intl-warm.js';

// Before the first layout: app.css picks this platform's monospace family (see --font-mono there).
document.documentElement.dataset.fonts = fontPlatform(navigator);

export const transport = createTransport();
export const api = connectApi(transport);
export const prefetch = new OpenPrefetch(api);
prefetch.startSessions();
const opening = parseRoute(location.hash);
if (opening.name === 'session') prefetch.start(opening.sessionId);

/**
 * Where cores are to spare, a worker reads the locale's date and number data in while the app
 * loads (shared/domain/intl-warm.ts): this resolves once it has, and the page's own formatters then
 * cost it well under a millisecond (state/locale.svelte.ts). Null where no worker runs: on two
 * cores or fewer its CPU would come out of the first screen's, and the page reads the data in
 * itself once that is up. A worker that fails leaves this pending, and the page does the same.
 */
export const intlWarmed: Promise<void> | null = warmsInWorker(navigator.hardwareConcurrency) ? warmInWorker() : null;

function warmInWorker(): Promise<void> | null {
  try {
    const warm = new Worker(new URL('./lib/intl-warm.worker.ts', import.meta.url), {
      type: 'module',
      name: 'intl-warm',
    });
    return new Promise((resolve) => {
      warm.onmessage = () => resolve();
      warm.onerror = (event) => event.preventDefault();
    });
  } catch {
    return null;
  }
}
