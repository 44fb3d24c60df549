import { BrowserWindow, ipcMain, type IpcMainInvokeEvent } from 'electron';
import type { Contract } from '../../shared/ipc/define.js';
import { DroverError, type Result } from '../../shared/ipc/errors.js';
import { EVENTS_CHANNEL, REQUEST_CHANNEL_PREFIX } from '../../shared/ipc/bridge.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { TurnBatch, type ContractEvent } from '../ipc/turn-batch.js';
import { isAppUrl } from './protocol.js';

/**
 * Serves the contract over Electron IPC: one handler per request name. A call is
 * answered only when it comes from the top frame of our own page. Events go to the app's windows
 * on one channel, the events of one turn of the event loop in one message (TurnBatch), and
 * before any answer that comes after them.
 */
export function serveContractOverIpc(contract: Contract, endpoint: ServerEndpoint): () => void {
  const names = Object.keys(contract.requests);
  const events = new TurnBatch<ContractEvent>((batch) => {
    for (const window of BrowserWindow.getAllWindows()) {
      if (!window.isDestroyed() && isAppUrl(window.webContents.getURL()))
        window.webContents.send(EVENTS_CHANNEL, batch);
    }
  });
  for (const name of names) {
    ipcMain.handle(
      REQUEST_CHANNEL_PREFIX + name,
      async (event: IpcMainInvokeEvent, input: unknown): Promise<Result<unknown>> => {
        if (!fromOurFrame(event)) {
          return {
            ok: false,
            error: new DroverError('unauthorized', "IPC is accepted only from Drover's own page").toJSON(),
          };
        }
        const result = await endpoint.handle(name, input);
        // What happened before the answer reaches the page before it.
        events.flush();
        return result;
      },
    );
  }
  const unsubscribe = endpoint.subscribe((name, payload) => events.add({ name, payload }));
  return () => {
    unsubscribe();
    events.close();
    for (const name of names) ipcMain.removeHandler(REQUEST_CHANNEL_PREFIX + name);
  };
}

function fromOurFrame(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  if (!frame || frame !== event.sender.mainFrame) return false;
  return isAppUrl(frame.url);
}
