import { EventEmitter } from 'node:events';
import type * as E from 'electron';
import type { FakeWebContents } from './browser-window.js';
import type { FakeIpcMain } from './ipc-main.js';

type RendererListener = (event: E.IpcRendererEvent, ...args: unknown[]) => void;

/**
 * The page side of one window, for running the preload under test: ipcRenderer wired to that
 * window's webContents (what main sends arrives a task later, structured-cloned, as in Electron)
 * and to ipcMain (invoke from the window's top frame), and contextBridge keeping what the preload
 * exposes to the page.
 */
export class FakeRenderer {
  /** What the preload put on the page's window, by key. */
  readonly exposed = new Map<string, unknown>();
  readonly ipcRenderer: FakeIpcRenderer;
  readonly contextBridge: Pick<E.ContextBridge, 'exposeInMainWorld'>;

  constructor(contents: FakeWebContents, ipcMain: FakeIpcMain) {
    this.ipcRenderer = new FakeIpcRenderer(contents, ipcMain);
    this.contextBridge = {
      exposeInMainWorld: (apiKey: string, api: unknown) => {
        if (this.exposed.has(apiKey)) throw new Error(`Cannot bind an API on top of an existing property "${apiKey}"`);
        this.exposed.set(apiKey, api);
      },
    };
  }
}

export class FakeIpcRenderer implements Pick<E.IpcRenderer, 'invoke' | 'on' | 'removeListener'> {
  readonly #contents: FakeWebContents;
  readonly #ipcMain: FakeIpcMain;
  readonly #channels = new EventEmitter();

  constructor(contents: FakeWebContents, ipcMain: FakeIpcMain) {
    this.#contents = contents;
    this.#ipcMain = ipcMain;
    contents.on('fake-renderer-message', (channel: string, args: unknown[]) => {
      // Each message is a task of its own on the page, with its own copy of the arguments.
      const copy = structuredClone(args);
      setImmediate(() => this.#channels.emit(channel, { sender: this } as unknown as E.IpcRendererEvent, ...copy));
    });
  }

  /** How many listeners the page has on `channel`. */
  listenerCount(channel: string): number {
    return this.#channels.listenerCount(channel);
  }

  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    return this.#ipcMain.invoke(this.#contents, this.#contents.mainFrame, channel, ...structuredClone(args));
  }

  // Electron's own returns itself, for chaining; this one is only part of it.
  on(channel: string, listener: RendererListener): E.IpcRenderer {
    this.#channels.on(channel, listener);
    return this as unknown as E.IpcRenderer;
  }

  removeListener(channel: string, listener: RendererListener): E.IpcRenderer {
    this.#channels.removeListener(channel, listener);
    return this as unknown as E.IpcRenderer;
  }
}
