// First: the connection and the first requests go out before the rest of the page's code runs (boot.ts).
import { api, intlWarmed, prefetch, transport } from './boot.js';
import { forgetTokenAfter } from './lib/api.js';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('Drover: the #app element is missing from index.html');

// The app is a chunk of its own, fetched alongside this one (a modulepreload link in the page):
// while it is compiled, the connection opens and the first answers come in.
import('./app-main.js').then(
  ({ mountApp }) => {
    mountApp(target, { api, transport, prefetch }, intlWarmed);
    // The token leaves the address bar once the first answers are on screen.
    forgetTokenAfter(prefetch.settled());
  },
  (error: unknown) => {
    const message = document.createElement('p');
    message.setAttribute('role', 'alert');
    message.textContent = `Drover could not load its page (${error instanceof Error ? error.message : String(error)}). Reload to try again.`;
    target.replaceChildren(message);
    forgetTokenAfter(Promise.resolve());
    throw error;
  },
);
