import { EventEmitter } from 'node:events';
import type * as E from 'electron';
import type { FakeWebContents, FakeWebFrame } from './browser-window.js';

type InvokeHandler = Parameters<E.IpcMain['handle']>[1];

/** ipcMain's invoke side: one handler per channel (a second one throws, as Electron's does). */
export class FakeIpcMain extends EventEmitter implements Pick<E.IpcMain, 'handle' | 'handleOnce' | 'removeHandler'> {
  readonly #handlers = new Map<string, InvokeHandler>();

  handle(channel: string, listener: InvokeHandler): void {
    if (this.#handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.#handlers.set(channel, listener);
  }

  handleOnce(channel: string, listener: InvokeHandler): void {
    this.handle(channel, (event, ...args: unknown[]) => {
      this.removeHandler(channel);
      return listener(event, ...args);
    });
  }

  removeHandler(channel: string): void {
    this.#handlers.delete(channel);
  }

  channels(): string[] {
    return [...this.#handlers.keys()];
  }

  /**
   * What ipcRenderer.invoke from `frame` of `sender` reaches: the handler's answer, or Electron's
   * error for a channel nobody handles. `frame: null` is a frame that went away before the call.
   */
  async invoke(
    sender: FakeWebContents,
    frame: FakeWebFrame | null,
    channel: string,
    ...args: unknown[]
  ): Promise<unknown> {
    const handler = this.#handlers.get(channel);
    if (!handler)
      throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
    const event = {
      type: 'frame',
      sender,
      senderFrame: frame,
      frameId: frame?.routingId ?? -1,
      processId: frame?.processId ?? -1,
      preventDefault: () => {},
      defaultPrevented: false,
    };
    return handler(event as unknown as E.IpcMainInvokeEvent, ...args);
  }
}
