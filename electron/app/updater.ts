import electronUpdater, { type AppUpdater } from 'electron-updater';

/** How often a running Drover asks GitHub releases for a newer version while updates are on. */
export const CHECK_EVERY_MS = 4 * 60 * 60 * 1000;
/**
 * How often the setting is read again: turning updates on takes effect within this time, without
 * a restart, and turning them off stops a pending install at quit within it too (and always at
 * quit itself, where the returned stop function reads it once more).
 */
export const SETTING_READ_EVERY_MS = 10 * 60 * 1000;
/**
 * A check that has not answered by then is given up on, so that a request that never returns (a
 * proxy that holds the connection open) does not stop every later check; the next is due
 * CHECK_EVERY_MS after the one given up on, as after a failed check. electron-updater hands a
 * later check the same promise while its own is in flight, so that next check gets a fresh answer
 * once electron-updater's request has ended (its sockets time out after 60 s of silence).
 */
export const CHECK_GIVE_UP_MS = 2 * 60 * 1000;

/** The part of electron-updater's AppUpdater that Drover drives; a test passes a fake of it. */
export type UpdateSource = Pick<
  AppUpdater,
  'autoDownload' | 'autoInstallOnAppQuit' | 'logger' | 'checkForUpdates' | 'downloadUpdate'
>;

export interface UpdateOptions {
  /**
   * The person's setting (desktop.autoUpdate, off by default). Nothing is checked or fetched while
   * it is false, and nothing is installed, except on macOS as `startUpdates` explains.
   */
  enabled: () => boolean;
  /** Where every line about updates goes, failures included; nothing is shown to the person. */
  log: (line: string) => void;
  /** electron-updater's autoUpdater (reading the app's app-update.yml: GitHub releases) unless given. */
  updater?: UpdateSource;
  /** process.platform unless given: macOS installs differently (below). */
  platform?: NodeJS.Platform;
}

const GAVE_UP = Symbol('gave up');

/**
 * Checks for a new release at start and every few hours while the setting allows it, downloads it,
 * and installs it when Drover next quits. Returns a function that stops the checks; call it on the
 * way to quitting, before Electron's `quit` event, so that the install follows the setting as it
 * is then.
 *
 * electron-updater reads `autoInstallOnAppQuit` once, when a download completes (6.8:
 * BaseUpdater.addQuitHandler, MacUpdater.updateDownloaded), so it is true just before each
 * download and false otherwise:
 * - Windows and Linux: the flag being true then adds a handler on the app's `quit` event, which
 *   reads the flag again at quit; Drover sets it from the setting at every reading, so turning
 *   updates off after a download still keeps the update from being installed.
 * - macOS: the flag being true then hands the update to Squirrel.Mac, which installs it when the
 *   app quits, and Electron has no way to take it back. Turning updates off after that does not
 *   stop that one install; the log says so. Drover does not instead keep the update from Squirrel
 *   until quit (electron-updater's quitAndInstall): quitting would then wait while Squirrel reads
 *   and verifies the whole archive, and an unsigned build, which Squirrel refuses, would need a
 *   timeout before it could quit at all. The person turned updates on for this very download.
 */
export function startUpdates(options: UpdateOptions): () => void {
  const { log } = options;
  const platform = options.platform ?? process.platform;
  // Reading electron-updater's autoUpdater creates the platform's updater, which loads Electron:
  // only when no updater is given.
  const updater = options.updater ?? electronUpdater.autoUpdater;
  // Drover decides when to download; electron-updater never does so on its own.
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
  // While a download runs the flag stays true, so electron-updater takes the update when it completes.
  let downloading = false;
  // macOS: the version Squirrel.Mac holds and installs at quit whatever the setting says.
  let handedToMacOs: string | null = null;
  let toldMacOsKeepsIt = false;
  let stopped = false;

  const allowed = (): boolean => {
    try {
      return options.enabled();
    } catch (error) {
      log(`updates: the setting could not be read, so updates stay off (${(error as Error).message}).`);
      return false;
    }
  };

  /** The flag that decides the install at quit, for a downloaded update, from the setting read now. */
  const followSetting = (on: boolean): void => {
    if (!downloaded || downloading) return;
    updater.autoInstallOnAppQuit = on;
    if (!on && handedToMacOs && !toldMacOsKeepsIt) {
      toldMacOsKeepsIt = true;
      log(
        `updates: updates are off, but Drover ${handedToMacOs} was already handed to macOS's installer, which installs it when Drover quits.`,
      );
    }
  };

  /** The check's answer, or GAVE_UP once CHECK_GIVE_UP_MS have passed without one. */
  function checkWithin(): Promise<Awaited<ReturnType<UpdateSource['checkForUpdates']>> | typeof GAVE_UP> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const giveUp = new Promise<typeof GAVE_UP>((resolve) => {
      timer = setTimeout(() => resolve(GAVE_UP), CHECK_GIVE_UP_MS);
      timer.unref?.();
    });
    return Promise.race([updater.checkForUpdates(), giveUp]).finally(() => clearTimeout(timer));
  }

  async function download(version: string): Promise<void> {
    log(`updates: Drover ${version} is available; downloading it.`);
    // True when the download completes, or electron-updater never installs it (above).
    updater.autoInstallOnAppQuit = true;
    downloading = true;
    try {
      await updater.downloadUpdate();
    } catch (error) {
      // An earlier download may still be waiting for quit; otherwise nothing is to be installed.
      updater.autoInstallOnAppQuit = downloaded !== null && allowed();
      throw error;
    } finally {
      downloading = false;
    }
    downloaded = version;
    if (platform === 'darwin') {
      handedToMacOs = version;
      toldMacOsKeepsIt = false;
    }
    // The setting may have been turned off while the download ran.
    const on = allowed();
    followSetting(on);
    if (on) log(`updates: Drover ${version} is downloaded and will be installed when Drover quits.`);
  }

  async function check(): Promise<void> {
    checking = true;
    lastCheck = Date.now();
    try {
      const result = await checkWithin();
      if (result === GAVE_UP) {
        log(
          `updates: the check for a new version did not answer within ${CHECK_GIVE_UP_MS / 1000} s; giving up on it.`,
        );
        return;
      }
      if (!result?.isUpdateAvailable || stopped || !allowed()) return;
      const version = result.updateInfo.version;
      if (downloaded === version) return;
      await download(version);
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
    followSetting(on);
    if (!on || checking) return;
    if (lastCheck !== null && Date.now() - lastCheck < CHECK_EVERY_MS) return;
    void check();
  }

  tick();
  const timer = setInterval(tick, SETTING_READ_EVERY_MS);
  timer.unref?.();
  return () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    // Called on the way to quitting: electron-updater's quit handler reads the flag right after.
    followSetting(allowed());
  };
}
