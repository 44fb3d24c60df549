/**
 * The sandboxed preload: exposes one function per request and one event feed, both
 * limited to the names in the contract. The renderer never sees ipcRenderer.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { contract } from '../shared/contract.js';
import { BRIDGE_KEY, EVENT_CHANNEL_PREFIX, REQUEST_CHANNEL_PREFIX, type DroverBridge } from '../shared/ipc/bridge.js';
import type { Result } from '../shared/ipc/errors.js';

const requests: Record<string, (input: unknown) => Promise<Result<unknown>>> = {};
for (const name of Object.keys(contract.requests)) {
  requests[name] = (input) => ipcRenderer.invoke(REQUEST_CHANNEL_PREFIX + name, input) as Promise<Result<unknown>>;
}
const eventNames = Object.keys(contract.events);

const bridge: DroverBridge = {
  requests,
  onEvent(listener) {
    const handlers = eventNames.map((name) => {
      const handler = (_event: IpcRendererEvent, payload: unknown) => listener(name, payload);
      ipcRenderer.on(EVENT_CHANNEL_PREFIX + name, handler);
      return [name, handler] as const;
    });
    return () => {
      for (const [name, handler] of handlers) ipcRenderer.removeListener(EVENT_CHANNEL_PREFIX + name, handler);
    };
  },
};

contextBridge.exposeInMainWorld(BRIDGE_KEY, bridge);
