import type { AppUpdater, UpdateCheckResult } from 'electron-updater';

/**
 * electron-updater's autoUpdater as Drover drives it: the flags it sets and the checks it asks
 * for. No release is ever found here; the tests look at when Drover asks.
 */
export class FakeAppUpdater implements Pick<
  AppUpdater,
  'autoDownload' | 'autoInstallOnAppQuit' | 'logger' | 'checkForUpdates' | 'downloadUpdate'
> {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  logger: AppUpdater['logger'] = null;
  checks = 0;
  downloads = 0;

  async checkForUpdates(): Promise<UpdateCheckResult | null> {
    this.checks += 1;
    return null;
  }

  async downloadUpdate(): Promise<string[]> {
    this.downloads += 1;
    return [];
  }
}

/** The module `vi.mock('electron-updater', …)` installs, reading the current fake's updater. */
export function updaterModule(current: () => { updater: FakeAppUpdater }) {
  const exports = {
    get autoUpdater() {
      return current().updater;
    },
  };
  return Object.defineProperty(exports, 'default', { value: exports, enumerable: true }) as typeof exports & {
    default: typeof exports;
  };
}
