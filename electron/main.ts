/** Composition root of the desktop app: build the services, serve the contract, dispose on quit. */
import { join } from 'node:path';
import { app, BrowserWindow, dialog } from 'electron';
import { contract } from '../shared/contract.js';
import { createServices, type Services } from './core/services.js';
import { StoreOpenError } from './store/database.js';
import { DataFolderBusyError } from './store/data-lock.js';
import { noRoomAtStart } from './store/no-room.js';
import { registerAppScheme, serveRenderer } from './app/protocol.js';
import { createMainWindow, lockDownWebContents } from './app/window.js';
import { serveContractOverIpc } from './app/ipc-adapter.js';
import { SafeStorageSecretStore } from './app/secrets.js';
import { startTaskTray, trayIconPath } from './app/tray.js';
import { desktopFiles } from './app/files.js';

const appRoot = app.getAppPath();
let services: Services | undefined;
let window: BrowserWindow | undefined;
let stopIpc: (() => void) | undefined;
let stopTray: (() => void) | undefined;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  registerAppScheme();
  lockDownWebContents();
  app.on('second-instance', () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.whenReady().then(start, (error: unknown) => fail(error));
  app.on('window-all-closed', () => app.quit());
  // Quitting stops every task as a group and flushes its log before the app exits.
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting || !services) return;
    event.preventDefault();
    quitting = true;
    stopIpc?.();
    stopTray?.();
    void services.shutdown().finally(() => app.exit(0));
  });
}

function start(): void {
  try {
    const sqliteBinding = process.env.DROVER_SQLITE_BINDING;
    services = createServices({
      dataDir: app.getPath('userData'),
      version: app.getVersion(),
      host: 'electron',
      checkOutputs: false,
      workingDir: app.getPath('home'),
      secrets: new SafeStorageSecretStore(app.getPath('userData')),
      ...desktopFiles(() => window),
      ...(sqliteBinding ? { sqliteBinding } : {}),
    });
  } catch (error) {
    fail(error);
    return;
  }
  serveRenderer(join(appRoot, 'out', 'renderer'));
  stopIpc = serveContractOverIpc(contract, services);
  window = createMainWindow({
    preloadPath: join(appRoot, 'out', 'preload', 'preload.cjs'),
    iconPath: trayIconPath(appRoot),
  });
  const running = services;
  stopTray = startTaskTray({
    services: running,
    iconPath: trayIconPath(appRoot),
    window: () => window,
    notificationsEnabled: () => running.settings.current.notifications?.enabled ?? true,
  });
}

function fail(error: unknown): void {
  const message =
    error instanceof StoreOpenError || error instanceof DataFolderBusyError
      ? error.message
      : (noRoomAtStart(error, app.getPath('userData')) ?? `Drover could not start: ${String(error)}`);
  dialog.showErrorBox('Drover', message);
  app.exit(1);
}
