import { app, dialog, Notification, powerMonitor, type BrowserWindow } from 'electron';
import { liveWork, quitButton, quitQuestion, schedulesNote, trayNotice, type LiveWork } from '../core/live-work.js';
import type { Services } from '../core/services.js';
import { STOP_SIGNALS } from '../core/stopping.js';

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
  /** Windows: a balloon from the tray icon, where system notifications are not supported. */
  balloon: (title: string, body: string) => void;
  log: (line: string) => void;
}

export interface Closing {
  /** Watches a main window's close (and, on Windows, the end of the session). */
  watch(window: BrowserWindow): void;
  /** The services are draining (or drained): nothing may show the window again. */
  readonly draining: boolean;
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
 *
 * Quitting is held at `before-quit` until the drain is over (`drained`), however many times it is
 * asked for (Cmd+Q twice, the dock's Quit, SIGTERM): letting one through earlier would close the
 * windows and end the process while tasks are still being stopped.
 */
export function handleClosing(options: CloseToTrayOptions): Closing {
  const { services } = options;
  const whenClosed = () => services.settings.current.desktop?.whenClosed ?? 'tray';
  let draining = false;
  let drained = false;
  let asking: Promise<boolean> | null = null;
  let toldOnce = false;
  // The OS is shutting down or logging out: nobody is there to answer, and a kept window would hold it up.
  let systemEnding = false;

  const ask = async (work: LiveWork): Promise<boolean> => {
    const window = options.window();
    const note = schedulesNote(work);
    const box = {
      type: 'warning' as const,
      title: 'Quit Drover',
      message: quitQuestion(work),
      detail: [
        ...work.items.slice(0, QUESTION_ITEMS_MAX),
        ...(work.items.length > QUESTION_ITEMS_MAX ? [`and ${work.items.length - QUESTION_ITEMS_MAX} more`] : []),
        ...(note ? ['', note] : []),
      ].join('\n'),
      buttons: [quitButton(work), 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      noLink: true,
    };
    // A hidden window would hold the dialog where nobody sees it (a sheet on macOS).
    const shown = window && !window.isDestroyed() && window.isVisible();
    if (shown) return (await dialog.showMessageBox(window, box)).response === 0;
    // From the tray or the dock with no window up, macOS would open the box behind other apps.
    if (process.platform === 'darwin') app.focus({ steal: true });
    return (await dialog.showMessageBox(box)).response === 0;
  };

  /**
   * A signal is an order, not a question: nobody may be at the window to answer one (a closed
   * terminal, a process manager). Left to Electron, each of these becomes a quit, which asks while
   * work is live. Listening replaces Electron's own handling, for good: the listeners stay until
   * the process ends (without one, the signal would end Drover on the spot mid-quit), and a
   * signal during the drain or after it changes nothing.
   */
  const onStopSignal = (): void => {
    systemEnding = true;
    void drain();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onStopSignal);

  /** Stops everything and quits, without asking. Runs once; later calls wait on nothing. */
  const drain = async (): Promise<void> => {
    if (draining) return;
    draining = true;
    options.beforeDrain();
    // Stopping tasks takes their grace period; the window goes at once so the quit feels done.
    const window = options.window();
    if (window && !window.isDestroyed()) window.hide();
    try {
      await services.shutdown();
    } catch (error) {
      // What could be stopped was; the rest is found as leftovers at the next start. Quit anyway.
      options.log(`the shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    drained = true;
    // Quit again, now let through: Electron closes the windows and emits will-quit and quit,
    // where electron-updater installs a downloaded update (app.exit would skip those events).
    app.quit();
  };

  const quit = async (): Promise<void> => {
    if (draining) return;
    const work = liveWork(services);
    if (work.total > 0 && !systemEnding) {
      // A second Quit while the question is open waits for the same answer.
      asking ??= ask(work).finally(() => (asking = null));
      if (!(await asking)) return;
    }
    await drain();
  };

  /** Says once per run that closing did not quit; a promise when the window must wait for the person to read it. */
  const tellOnce = (work: LiveWork, window: BrowserWindow): Promise<unknown> | null => {
    // Said whatever the notification setting: otherwise Drover seems to have quit while it runs work.
    if (toldOnce) return null;
    toldOnce = true;
    const notice = trayNotice(work, process.platform === 'darwin' ? 'menu bar' : 'tray');
    if (Notification.isSupported()) {
      const shown = new Notification({ title: notice.title, body: notice.body, icon: options.iconPath });
      shown.on('click', () => options.showWindow());
      shown.show();
      return null;
    }
    if (process.platform === 'win32') {
      options.balloon(notice.title, notice.body);
      return null;
    }
    // No notifications here (a Linux desktop without a notification server): said once, in a box, before it hides.
    return dialog.showMessageBox(window, {
      type: 'info',
      title: notice.title,
      message: notice.title,
      detail: notice.body,
      buttons: ['OK'],
      noLink: true,
    });
  };

  // Cmd+Q, the app menu's Quit, the tray's Quit Drover, SIGTERM and the last window closing all come here.
  app.on('before-quit', (event) => {
    if (drained) return;
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
    void drain();
  });

  return {
    get draining() {
      return draining;
    },
    watch(window) {
      // Windows asks before the session ends (shut down, restart, log off). On Windows that end
      // emits no before-quit or will-quit and closes no window, so the drain starts here, and
      // holds the session while live work is being stopped.
      window.on('query-session-end', (event) => {
        systemEnding = true;
        if (drained) return;
        if (draining || liveWork(services).total > 0) event.preventDefault();
        void drain();
      });
      // The session ends now and nothing can hold it. Started here at the latest, if Windows skipped the question.
      window.on('session-end', () => {
        systemEnding = true;
        void drain();
      });
      window.on('close', (event) => {
        if (draining || systemEnding) return;
        const work = liveWork(services);
        // Nothing live: the window closes, and `window-all-closed` quits (or, on macOS, stays in the dock).
        if (work.total === 0) return;
        event.preventDefault();
        if (whenClosed() === 'quit') {
          void quit();
          return;
        }
        const hide = () => {
          if (!window.isDestroyed() && !draining) window.hide();
        };
        const told = tellOnce(work, window);
        if (told) void told.then(hide);
        else hide();
      });
    },
  };
}
