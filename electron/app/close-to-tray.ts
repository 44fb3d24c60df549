import { app, dialog, Notification, powerMonitor, type BrowserWindow } from 'electron';
import { liveWork, quitButton, quitQuestion, trayNotice, type LiveWork } from '../core/live-work.js';
import type { Services } from '../core/services.js';

/** The quit question lists this many items, then says how many more. */
export const QUESTION_ITEMS_MAX = 12;

export interface CloseToTrayOptions {
  services: Services;
  iconPath: string;
  /** The main window if it is open. */
  window: () => BrowserWindow | undefined;
  /** Shows the main window, opening it again when it was closed. */
  showWindow: () => void;
  /** Stops what talks to the window (IPC, tray, updates) before the services drain. */
  beforeDrain: () => void;
}

/**
 * What closing the window and quitting do (issue #18). A supervisor that quits with its window
 * would kill the work it exists to keep alive, so while anything is live, closing the last window
 * hides it and Drover keeps running in the tray (said once per run), unless the person chose
 * `desktop.whenClosed: 'quit'`. Quitting with live work asks first, with the list; confirmed, the
 * services drain (every task stopped as a group, logs flushed) and the app quits.
 *
 * The window is hidden rather than closed so that "Show Drover" brings back the page as it was
 * (the open session, the scroll, a half-typed message) at once; on macOS with nothing live it
 * closes as usual and the dock's `activate` opens a new one.
 */
export function handleClosing(options: CloseToTrayOptions): { watch(window: BrowserWindow): void } {
  const { services } = options;
  const whenClosed = () => services.settings.current.desktop?.whenClosed ?? 'tray';
  let exiting = false;
  let asking: Promise<boolean> | null = null;
  let toldOnce = false;
  // The OS is shutting down or logging out: nobody is there to answer, and a kept window would hold it up.
  let systemEnding = false;

  const ask = async (work: LiveWork): Promise<boolean> => {
    const window = options.window();
    const box = {
      type: 'warning' as const,
      title: 'Quit Drover',
      message: quitQuestion(work),
      detail: [
        ...work.items.slice(0, QUESTION_ITEMS_MAX),
        ...(work.items.length > QUESTION_ITEMS_MAX ? [`and ${work.items.length - QUESTION_ITEMS_MAX} more`] : []),
        ...(work.counts.schedule > 0 ? ['', 'Schedules do not run while Drover is closed.'] : []),
      ].join('\n'),
      buttons: [quitButton(work), 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      noLink: true,
    };
    // A hidden window would hold the dialog where nobody sees it (a sheet on macOS).
    const shown = window && !window.isDestroyed() && window.isVisible();
    const answer = shown ? await dialog.showMessageBox(window, box) : await dialog.showMessageBox(box);
    return answer.response === 0;
  };

  const quit = async (): Promise<void> => {
    if (exiting) return;
    const work = liveWork(services);
    if (work.total > 0 && !systemEnding) {
      // A second Quit while the question is open waits for the same answer.
      asking ??= ask(work).finally(() => (asking = null));
      if (!(await asking)) return;
    }
    if (exiting) return;
    exiting = true;
    options.beforeDrain();
    // Stopping tasks takes their grace period; the window goes at once so the quit feels done.
    const window = options.window();
    if (window && !window.isDestroyed()) window.hide();
    try {
      await services.shutdown();
    } finally {
      // Quit again, now let through: Electron closes the windows and emits will-quit and quit,
      // where electron-updater installs a downloaded update (app.exit would skip those events).
      app.quit();
    }
  };

  const tellOnce = (work: LiveWork) => {
    // Said whatever the notification setting: otherwise Drover seems to have quit while it runs work.
    if (toldOnce || !Notification.isSupported()) return;
    toldOnce = true;
    const notice = trayNotice(work, process.platform === 'darwin' ? 'menu bar' : 'tray');
    const shown = new Notification({ title: notice.title, body: notice.body, icon: options.iconPath });
    shown.on('click', () => options.showWindow());
    shown.show();
  };

  // Cmd+Q, the app menu's Quit, the tray's Quit Drover, and the last window closing all come here.
  app.on('before-quit', (event) => {
    if (exiting) return;
    event.preventDefault();
    void quit();
  });
  app.on('window-all-closed', () => {
    // macOS keeps an app without windows in the dock; `activate` opens the window again.
    if (process.platform === 'darwin' && whenClosed() === 'tray') return;
    app.quit();
  });
  app.on('activate', () => options.showWindow());
  // macOS and Linux: Electron delays the shutdown while the app drains, if asked to. The event it
  // passes (documented) is missing from the .d.ts, whose listener takes no argument.
  powerMonitor.on('shutdown', (...args: unknown[]) => {
    (args[0] as { preventDefault?: () => void } | undefined)?.preventDefault?.();
    systemEnding = true;
    void quit();
  });

  return {
    watch(window) {
      // Windows: the session ends (shut down, restart, log off); the windows close and the app quits without asking.
      window.on('session-end', () => {
        systemEnding = true;
      });
      window.on('close', (event) => {
        if (exiting || systemEnding) return;
        const work = liveWork(services);
        // Nothing live: the window closes, and `window-all-closed` quits (or, on macOS, stays in the dock).
        if (work.total === 0) return;
        event.preventDefault();
        if (whenClosed() === 'quit') {
          void quit();
          return;
        }
        window.hide();
        tellOnce(work);
      });
    },
  };
}
