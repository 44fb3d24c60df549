import { BrowserWindow, app, nativeTheme, shell, type WebContents } from 'electron';
import { APP_URL, isAppUrl } from './protocol.js';
import { externalUrl } from './external-url.js';

export interface WindowOptions {
  preloadPath: string;
  iconPath?: string;
}

/** The main window, locked down: isolated, sandboxed, no Node, no navigation, no popups. */
export function createMainWindow(options: WindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Drover',
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#17181b' : '#ffffff',
    ...(options.iconPath ? { icon: options.iconPath } : {}),
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: true,
    },
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(APP_URL);
  return window;
}

/** Applies to every web contents the app ever creates, including any we did not expect. */
export function lockDownWebContents(): void {
  app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      // Links to the web (and mail links, which the rendered Markdown allows) open in the person's
      // browser or mail program, never inside the app; every other scheme is refused.
      const external = externalUrl(url);
      if (external) void shell.openExternal(external);
      return { action: 'deny' };
    });
    contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  });
}
