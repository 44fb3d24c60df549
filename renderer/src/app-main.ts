import { mount } from 'svelte';
import type { ClientTransport } from '@shared/ipc/transport.js';
// Before App: the chunks' order of evaluation follows these imports (see codeSplitting in electron.vite.config.ts).
import { preloadPanelViews } from './components/tasks/load-panel-views.svelte.js';
import { loadLocaleAfter } from './lib/state/locale.svelte.js';
import App from './App.svelte';
import type { DroverApi } from './lib/api.js';
import type { OpenPrefetch } from './lib/state/open-prefetch.js';

/**
 * The app itself, imported by main.ts once boot.ts has sent the first requests; `intlWarmed`
 * resolves once a worker of the page has read the locale's data in (boot.ts), null where none does.
 */
export function mountApp(
  target: HTMLElement,
  props: { api: DroverApi; transport: ClientTransport; prefetch: OpenPrefetch },
  intlWarmed: Promise<void> | null,
): void {
  mount(App, { target, props });
  // What the first screen does without comes once it is up: the locale's formats, and the panel's
  // other views, before anyone clicks for them.
  const firstScreen = props.prefetch.settled();
  loadLocaleAfter(firstScreen, intlWarmed);
  preloadPanelViews(firstScreen);
}
