/**
 * The sandboxed preload: exposes one function per request and one event feed, both
 * limited to the names in the contract. The renderer never sees ipcRenderer. Events come in
 * batches on one channel (EVENTS_CHANNEL) and reach the page's listener one by one, in order,
 * within the one task that delivered the batch.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { contract } from '../shared/contract.js';
import { BRIDGE_KEY, EVENTS_CHANNEL, REQUEST_CHANNEL_PREFIX, type DroverBridge } from '../shared/ipc/bridge.js';
import { deliverEvent } from '../shared/ipc/deliver.js';
import type { Result } from '../shared/ipc/errors.js';

const requests: Record<string, (input: unknown) => Promise<Result<unknown>>> = {};
for (const name of Object.keys(contract.requests)) {
  requests[name] = (input) => ipcRenderer.invoke(REQUEST_CHANNEL_PREFIX + name, input) as Promise<Result<unknown>>;
}
const eventNames = new Set(Object.keys(contract.events));

const bridge: DroverBridge = {
  requests,
  onEvent(listener) {
    const handler = (_event: IpcRendererEvent, batch: unknown) => {
      if (!Array.isArray(batch)) return;
      for (const item of batch as unknown[]) {
        if (typeof item !== 'object' || item === null) continue;
        const { name, payload } = item as { name?: unknown; payload?: unknown };
        if (typeof name === 'string' && eventNames.has(name)) deliverEvent(listener, name, payload);
      }
    };
    ipcRenderer.on(EVENTS_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(EVENTS_CHANNEL, handler);
    };
  },
};

contextBridge.exposeInMainWorld(BRIDGE_KEY, bridge);
