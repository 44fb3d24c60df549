/**
 * What the page does before anything else: this module is the entry's first import, and the app
 * is a chunk of its own that main.ts imports after it, so its body runs while the app's code is
 * still being fetched and compiled. It opens the connection and sends the first requests (the
 * session list, and the first pages of the session the page opens on), and reads the locale's
 * date and number data in while the app's code compiles: by the time the app is built, the answers
 * are waiting (issue 18: opening a big session).
 */
import { connectApi, createTransport } from './lib/api.js';
import { OpenPrefetch } from './lib/state/open-prefetch.js';
import { parseRoute } from './lib/route.js';
import { fontPlatform } from './lib/platform.js';
import { warmIntl } from './lib/intl-warm.js';

// Before the first layout: app.css picks this platform's monospace family (see --font-mono there).
document.documentElement.dataset.fonts = fontPlatform(navigator);

export const transport = createTransport();
export const api = connectApi(transport);
export const prefetch = new OpenPrefetch(api);
prefetch.startSessions();
const opening = parseRoute(location.hash);
if (opening.name === 'session') prefetch.start(opening.sessionId);
// After the requests above are sent: a task of its own, run while the app's chunks still compile.
setTimeout(warmIntl, 0);
