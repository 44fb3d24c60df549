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
import { handleClosing, type Closing } from './app/close-to-tray.js';
import { startUpdates } from './app/updater.js';
import { dropUnwritableOutput } from './core/stopping.js';

const appRoot = app.getAppPath();
let window: BrowserWindow | undefined;
let closing: Closing | undefined;

// Started from a terminal that is then closed, Drover stops its tasks (close-to-tray.ts) and logs as it goes.
dropUnwritableOutput();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  registerAppScheme();
  lockDownWebContents();
  app.on('second-instance', () => showWindow());
  app.whenReady().then(start, (error: unknown) => fail(error));
}

function start(): void {
  let services: Services;
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
  const stopIpc = serveContractOverIpc(contract, services);
  const tray = startTaskTray({
    services,
    iconPath: trayIconPath(appRoot),
    window: () => window,
    showWindow,
    notificationsEnabled: () => services.settings.current.notifications?.enabled ?? true,
  });
  // Closing the window keeps live work running in the tray; quitting asks, then drains the services.
  closing = handleClosing({
    services,
    iconPath: trayIconPath(appRoot),
    window: () => window,
    showWindow,
    beforeDrain: () => {
      stopUpdates();
      stopIpc();
      tray.stop();
    },
    balloon: tray.balloon,
    log: (line) => console.error(`drover: ${line}`),
  });
  showWindow();
  // Looked for only once the window is up, and only while the person's setting allows (off by default).
  const stopUpdates = startUpdates({
    enabled: () => services.settings.current.desktop?.autoUpdate ?? false,
    log: (line) => console.error(`drover: ${line}`),
  });
}

/**
 * Raises the main window, opening it (again, after macOS closed it) when there is none. Not while
 * the services drain: the page would be dead (its IPC is already gone), and the app is quitting.
 */
function showWindow(): void {
  if (!closing || closing.draining) return;
  if (!window || window.isDestroyed()) {
    window = createMainWindow({
      preloadPath: join(appRoot, 'out', 'preload', 'preload.cjs'),
      iconPath: trayIconPath(appRoot),
    });
    closing.watch(window);
    return;
  }
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

function fail(error: unknown): void {
  const message =
    error instanceof StoreOpenError || error instanceof DataFolderBusyError
      ? error.message
      : (noRoomAtStart(error, app.getPath('userData')) ?? `Drover could not start: ${String(error)}`);
  dialog.showErrorBox('Drover', message);
  app.exit(1);
}
