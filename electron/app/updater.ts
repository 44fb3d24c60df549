import electronUpdater, { type AppUpdater } from 'electron-updater';

/** How often a running Drover asks GitHub releases for a newer version while updates are on. */
export const CHECK_EVERY_MS = 4 * 60 * 60 * 1000;
/**
 * How often the setting is read again: turning updates on takes effect within this time, without
 * a restart, and turning them off stops a pending install at quit within it too.
 */
export const SETTING_READ_EVERY_MS = 10 * 60 * 1000;

/** The part of electron-updater's AppUpdater that Drover drives; a test passes a fake of it. */
export type UpdateSource = Pick<
  AppUpdater,
  'autoDownload' | 'autoInstallOnAppQuit' | 'logger' | 'checkForUpdates' | 'downloadUpdate'
>;

export interface UpdateOptions {
  /** The person's setting (desktop.autoUpdate, off by default). Nothing is checked, fetched or installed while it is false. */
  enabled: () => boolean;
  /** Where every line about updates goes, failures included; nothing is shown to the person. */
  log: (line: string) => void;
  /** electron-updater's autoUpdater (reading the app's app-update.yml: GitHub releases) unless given. */
  updater?: UpdateSource;
}

/**
 * Checks for a new release at start and every few hours while the setting allows it, downloads it,
 * and installs it when Drover next quits. Returns a function that stops the checks.
 */
export function startUpdates(options: UpdateOptions): () => void {
  const { log } = options;
  // Reading electron-updater's autoUpdater creates the platform's updater, which loads Electron:
  // only when no updater is given.
  const updater = options.updater ?? electronUpdater.autoUpdater;
  // Drover decides when to download and install; electron-updater never does so on its own.
  updater.autoDownload = false;
  updater.autoInstallOnAppQuit = false;
  // electron-updater writes its progress and every failure (its own 'error' listener) to its logger:
  // send them to Drover's log instead of the console.
  updater.logger = {
    info: (message?: unknown) => log(`updates: ${String(message)}`),
    warn: (message?: unknown) => log(`updates: ${String(message)}`),
    error: (message?: unknown) => log(`updates failed: ${String(message)}`),
  };

  let lastCheck: number | null = null;
  let checking = false;
  let downloaded: string | null = null;
  let stopped = false;

  const allowed = (): boolean => {
    try {
      return options.enabled();
    } catch (error) {
      log(`updates: the setting could not be read, so updates stay off (${(error as Error).message}).`);
      return false;
    }
  };

  async function check(): Promise<void> {
    checking = true;
    lastCheck = Date.now();
    try {
      const result = await updater.checkForUpdates();
      if (!result?.isUpdateAvailable || stopped || !allowed()) return;
      const version = result.updateInfo.version;
      if (downloaded === version) return;
      log(`updates: Drover ${version} is available; downloading it.`);
      await updater.downloadUpdate();
      downloaded = version;
      updater.autoInstallOnAppQuit = !stopped && allowed();
      log(`updates: Drover ${version} is downloaded and will be installed when Drover quits.`);
    } catch {
      // Already in the log: electron-updater reports every failed check or download to its logger.
    } finally {
      checking = false;
    }
  }

  function tick(): void {
    if (stopped) return;
    const on = allowed();
    // An update downloaded while the setting was on is installed at quit only if it still is.
    if (downloaded) updater.autoInstallOnAppQuit = on;
    if (!on || checking) return;
    if (lastCheck !== null && Date.now() - lastCheck < CHECK_EVERY_MS) return;
    void check();
  }

  tick();
  const timer = setInterval(tick, SETTING_READ_EVERY_MS);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
