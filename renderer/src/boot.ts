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
import { warmIntl, warmsInWorker } from '@shared/domain/intl-warm.js';

// Before the first layout: app.css picks this platform's monospace family (see --font-mono there).
document.documentElement.dataset.fonts = fontPlatform(navigator);

export const transport = createTransport();
export const api = connectApi(transport);
export const prefetch = new OpenPrefetch(api);
prefetch.startSessions();
const opening = parseRoute(location.hash);
if (opening.name === 'session') prefetch.start(opening.sessionId);

// Best effort, never waited on (shared/domain/intl-warm.ts): on a thread of its own where cores are
// to spare, and on the main thread where no worker starts. With two cores or fewer the page's own
// inline script has queued it on the main thread already, as the page was parsed. A page whose
// worker fails later makes its formatters itself.
if (warmsInWorker(navigator.hardwareConcurrency) && !startedWarmWorker()) setTimeout(warmIntl, 0);

function startedWarmWorker(): boolean {
  try {
    const warm = new Worker(new URL('./lib/intl-warm.worker.ts', import.meta.url), {
      type: 'module',
      name: 'intl-warm',
    });
    warm.onerror = (event) => event.preventDefault();
    return true;
  } catch {
    return false;
  }
}
