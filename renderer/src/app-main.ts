import { mount } from 'svelte';
import type { ClientTransport } from '@shared/ipc/transport.js';
import App from './App.svelte';
import type { DroverApi } from './lib/api.js';
import type { OpenPrefetch } from './lib/state/open-prefetch.js';

/** The app itself, imported by main.ts once boot.ts has sent the first requests. */
export function mountApp(
  target: HTMLElement,
  props: { api: DroverApi; transport: ClientTransport; prefetch: OpenPrefetch },
): void {
  mount(App, { target, props });
}
