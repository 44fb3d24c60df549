import type * as E from 'electron';
import { FakeApp, type FakeAppOptions } from './app.js';
import { FakeBrowserWindow, FakeWindows, type FakeWebContents } from './browser-window.js';
import { FakeIpcMain } from './ipc-main.js';
import { FakeProtocol, fakeNet } from './protocol.js';
import { FakeDialog, FakePowerMonitor, FakeSafeStorage, FakeShell, makeNativeTheme } from './system.js';
import { FakeRenderer } from './renderer.js';
import { FakeMenu, FakeMenuItem, FakeNativeImage, FakeNotification, FakeTray } from './tray.js';
import { FakeAppUpdater } from './updater.js';

export { FakeBrowserWindow, FakeWebContents, FakeWebFrame } from './browser-window.js';
export type { OpenMessageBox } from './system.js';
export { FakeMenu, FakeNotification, FakeTray } from './tray.js';
export { FakeRenderer } from './renderer.js';
export { FakeAppUpdater, updaterModule } from './updater.js';

/**
 * An in-process Electron for tests (issue #18): the parts of its main-process API that Drover
 * uses, each typed against Electron's own .d.ts (see the `implements Pick<…>` and `satisfies`
 * clauses), so a change in Electron's API fails type-checking here. A test tool, never shipped.
 */
export interface FakeElectron {
  app: FakeApp;
  windows: FakeWindows;
  ipcMain: FakeIpcMain;
  protocol: FakeProtocol;
  dialog: FakeDialog;
  shell: FakeShell;
  safeStorage: FakeSafeStorage;
  powerMonitor: FakePowerMonitor;
  nativeTheme: ReturnType<typeof makeNativeTheme>;
  /** electron-updater's autoUpdater (its own package, mocked beside Electron). */
  updater: FakeAppUpdater;
  /** Every tray icon made, and every notification shown, in this fake's life. */
  trays: FakeTray[];
  notifications: FakeNotification[];
  setNotificationsSupported(supported: boolean): void;
  /** The page side the preload runs in (ipcRenderer, contextBridge), once a test attaches one to a window. */
  renderer: FakeRenderer | null;
  attachRenderer(contents: FakeWebContents): FakeRenderer;
}

export function createFakeElectron(options: FakeAppOptions): FakeElectron {
  const windows = new FakeWindows();
  const app = new FakeApp(options, windows);
  windows.attach(app);
  // The classes keep their instances in static lists; each fake starts them empty.
  FakeBrowserWindow.registry = windows;
  FakeTray.made = [];
  FakeNotification.shown = [];
  FakeNotification.supported = true;
  FakeMenu.application = null;
  const ipcMain = new FakeIpcMain();
  return {
    app,
    windows,
    ipcMain,
    protocol: new FakeProtocol(app),
    dialog: new FakeDialog(),
    shell: new FakeShell(),
    safeStorage: new FakeSafeStorage(),
    powerMonitor: new FakePowerMonitor(),
    nativeTheme: makeNativeTheme(),
    updater: new FakeAppUpdater(),
    get trays() {
      return FakeTray.made;
    },
    get notifications() {
      return FakeNotification.shown;
    },
    setNotificationsSupported(supported) {
      FakeNotification.supported = supported;
    },
    renderer: null,
    attachRenderer(contents) {
      this.renderer = new FakeRenderer(contents, ipcMain);
      return this.renderer;
    },
  };
}

/**
 * The module `vi.mock('electron', …)` installs: each export read from the current fake when the
 * code under test reads it, so one mock serves a fresh fake per test.
 */
export function electronModule(current: () => FakeElectron) {
  const exports = {
    get app() {
      return current().app;
    },
    get ipcMain() {
      return current().ipcMain;
    },
    get protocol() {
      return current().protocol;
    },
    get dialog() {
      return current().dialog;
    },
    get shell() {
      return current().shell;
    },
    get safeStorage() {
      return current().safeStorage;
    },
    get powerMonitor() {
      return current().powerMonitor;
    },
    get nativeTheme() {
      return current().nativeTheme;
    },
    // The preload's side: only once a test attaches a page to a window.
    get ipcRenderer() {
      return pageSide(current()).ipcRenderer;
    },
    get contextBridge() {
      return pageSide(current()).contextBridge;
    },
    net: fakeNet,
    nativeImage: FakeNativeImage,
    BrowserWindow: FakeBrowserWindow,
    Tray: FakeTray,
    Menu: FakeMenu,
    MenuItem: FakeMenuItem,
    Notification: FakeNotification,
  } satisfies Partial<Record<keyof typeof E, unknown>>;
  // A property of its own, not a spread, which would read every getter once, now.
  return Object.defineProperty(exports, 'default', { value: exports, enumerable: true }) as typeof exports & {
    default: typeof exports;
  };
}

function pageSide(fake: FakeElectron): FakeRenderer {
  if (!fake.renderer) throw new Error('No page side: call attachRenderer on the fake before loading the preload');
  return fake.renderer;
}
