import './app.css';
import { mount } from 'svelte';
import { connectApi, createTransport } from './lib/api.js';
import { OpenPrefetch } from './lib/state/open-prefetch.js';
import { parseRoute } from './lib/state/router.svelte.js';

// Best effort, never waited on: a page whose worker cannot start makes its formatters itself.
try {
  const warm = new Worker(new URL('./lib/intl-warm.worker.ts', import.meta.url), { type: 'module', name: 'intl-warm' });
  warm.onerror = (event) => event.preventDefault();
} catch {
  /* no worker here */
}

const target = document.getElementById('app');
if (!target) throw new Error('Drover: the #app element is missing from index.html');

// The connection and the first requests of the session the page opens on go out first, while the
// rest of the page's code loads and runs: the answers are waiting by the time the page is built.
const transport = createTransport();
const api = connectApi(transport);
const prefetch = new OpenPrefetch(api);
const opening = parseRoute(location.hash);
if (opening.name === 'session') prefetch.start(opening.sessionId);

const { default: App } = await import('./App.svelte');
mount(App, { target, props: { api, transport, prefetch } });
