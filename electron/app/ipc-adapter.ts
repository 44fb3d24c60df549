import { BrowserWindow, ipcMain, type IpcMainInvokeEvent } from 'electron';
import type { Contract } from '../../shared/ipc/define.js';
import { DroverError, type Result } from '../../shared/ipc/errors.js';
import { EVENT_CHANNEL_PREFIX, REQUEST_CHANNEL_PREFIX } from '../../shared/ipc/bridge.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { isAppUrl } from './protocol.js';

/**
 * Serves the contract over Electron IPC: one handler per request name. A call is
 * answered only when it comes from the top frame of our own page.
 */
export function serveContractOverIpc(contract: Contract, endpoint: ServerEndpoint): () => void {
  const names = Object.keys(contract.requests);
  for (const name of names) {
    ipcMain.handle(
      REQUEST_CHANNEL_PREFIX + name,
      (event: IpcMainInvokeEvent, input: unknown): Promise<Result<unknown>> | Result<unknown> => {
        if (!fromOurFrame(event)) {
          return {
            ok: false,
            error: new DroverError('unauthorized', "IPC is accepted only from Drover's own page").toJSON(),
          };
        }
        return endpoint.handle(name, input);
      },
    );
  }
  const unsubscribe = endpoint.subscribe((name, payload) => {
    for (const window of BrowserWindow.getAllWindows()) {
      if (!window.isDestroyed() && isAppUrl(window.webContents.getURL())) {
        window.webContents.send(EVENT_CHANNEL_PREFIX + name, payload);
      }
    }
  });
  return () => {
    unsubscribe();
    for (const name of names) ipcMain.removeHandler(REQUEST_CHANNEL_PREFIX + name);
  };
}

function fromOurFrame(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  if (!frame || frame !== event.sender.mainFrame) return false;
  return isAppUrl(frame.url);
}
