import type { DroverContract } from '@shared/contract.js';
import { createCallApi, type Api } from '@shared/ipc/client.js';
import { BRIDGE_KEY, type DroverBridge } from '@shared/ipc/bridge.js';
import { DroverError } from '@shared/ipc/drover-error.js';
import type { ClientTransport } from '@shared/ipc/transport.js';
import { createWsClient, type WebSocketLike } from '@shared/ipc/ws-client.js';
import { WS_PATH } from '@shared/ipc/ws-connect.js';
import { takeEarlySocket, TOKEN_STORAGE_KEY } from '@shared/ipc/early-socket.js';
import { whenIdle } from './idle.js';

export type DroverApi = Api<DroverContract>;

/** In Electron the preload bridge; in a browser the headless host's WebSocket. */
export function createTransport(): ClientTransport {
  const bridge = (window as unknown as Record<string, DroverBridge | undefined>)[BRIDGE_KEY];
  if (bridge) return bridgeTransport(bridge);
  return createWsClient({
    url: webSocketUrl(),
    createSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
    // The connection the page's own script opened as it was parsed, its first reads on the way (PAGE_SCRIPT).
    early: takeEarlySocket(window as unknown as Record<string, unknown>),
  });
}

function bridgeTransport(bridge: DroverBridge): ClientTransport {
  return {
    call(name, input) {
      const send = bridge.requests[name];
      if (!send)
        return Promise.resolve({
          ok: false,
          error: new DroverError('unknown_request', `Unknown request "${name}"`).toJSON(),
        });
      return send(input);
    },
    subscribe: (listener) => bridge.onEvent(listener),
  };
}

/** The token in the address this page was opened with (null when it had none: a reload, say). */
let openedWith: string | null = null;

/**
 * The token arrives once in the URL the host printed. It is kept for this tab only and taken
 * out of the address bar once the page's first screen is up (forgetTokenAfter; replaceState: no
 * later history entry has it), so it is not shown, bookmarked or shared in a screenshot. Until
 * then a reload still finds it in the address.
 */
function webSocketUrl(): string {
  openedWith = new URLSearchParams(location.search).get('token');
  const token = openedWith ?? hostToken();
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${WS_PATH}?token=${encodeURIComponent(token)}`;
}

/** The headless host's token for this tab (kept in sessionStorage, never in the URL), for REST calls the page makes. */
export function hostToken(): string {
  return openedWith ?? sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
}

/**
 * The latest the token leaves the address bar, first screen or not (a host that never answers, a
 * tab in the background that draws no frames).
 */
const FORGET_TOKEN_LATEST_MS = 5_000;

/**
 * Takes the token out of the address bar once `firstScreen` has settled and a frame has drawn
 * it, when the page is idle. Not sooner: storing it and a same-document navigation cost the
 * page's main thread 10 to 16 ms on a 2-core machine, and while a page opens that main thread is
 * its critical path; an idle callback alone ran them in a pause of the load, between the first
 * requests and the app's code (issue 18: opening a big session).
 */
export function forgetTokenAfter(firstScreen: Promise<unknown>): void {
  if (!openedWith) return;
  let scheduled = false;
  const forget = (): void => {
    if (scheduled) return;
    scheduled = true;
    whenIdle(forgetTokenInUrl, 1_000);
  };
  setTimeout(forget, FORGET_TOKEN_LATEST_MS);
  const drawn = (): void => void requestAnimationFrame(forget);
  firstScreen.then(drawn, drawn);
}

/** Keeps the token for the tab's reloads, and takes it out of the address bar. */
function forgetTokenInUrl(): void {
  sessionStorage.setItem(TOKEN_STORAGE_KEY, openedWith!);
  const params = new URLSearchParams(location.search);
  if (!params.has('token')) return;
  params.delete('token');
  const query = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
}

/** The contract's requests over `transport`; built without the contract's schemas (createCallApi), so it is cheap to make first. */
export function connectApi(transport: ClientTransport): DroverApi {
  return createCallApi<DroverContract>(transport);
}
