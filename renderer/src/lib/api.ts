import type { DroverContract } from '@shared/contract.js';
import { createCallApi, type Api } from '@shared/ipc/client.js';
import { BRIDGE_KEY, type DroverBridge } from '@shared/ipc/bridge.js';
import { DroverError } from '@shared/ipc/errors.js';
import type { ClientTransport } from '@shared/ipc/transport.js';
import { createWsClient, type WebSocketLike } from '@shared/ipc/ws-client.js';
import { WS_PATH } from '@shared/ipc/ws-protocol.js';

export type DroverApi = Api<DroverContract>;

const TOKEN_KEY = 'drover.token';

/** In Electron the preload bridge; in a browser the headless host's WebSocket. */
export function createTransport(): ClientTransport {
  const bridge = (window as unknown as Record<string, DroverBridge | undefined>)[BRIDGE_KEY];
  if (bridge) return bridgeTransport(bridge);
  return createWsClient({
    url: webSocketUrl(),
    createSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
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

/**
 * The token arrives once in the URL the host printed. It is kept for this tab only and taken
 * out of the address bar at once (replaceState: no history entry keeps it), so it is not
 * shown, bookmarked, shared in a screenshot or left in the browser's history.
 */
function webSocketUrl(): string {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    params.delete('token');
    const query = params.toString();
    history.replaceState(history.state, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
  }
  const token = fromUrl ?? hostToken();
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${WS_PATH}?token=${encodeURIComponent(token)}`;
}

/** The headless host's token for this tab (kept in sessionStorage, never in the URL), for REST calls the page makes. */
export function hostToken(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** The contract's requests over `transport`; built without the contract's schemas (createCallApi), so it is cheap to make first. */
export function connectApi(transport: ClientTransport): DroverApi {
  return createCallApi<DroverContract>(transport);
}
