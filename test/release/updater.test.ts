import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CHECK_EVERY_MS,
  CHECK_GIVE_UP_MS,
  SETTING_READ_EVERY_MS,
  startUpdates,
  type UpdateSource,
} from '../../electron/app/updater.js';

type Platform = 'darwin' | 'linux' | 'win32';

/**
 * A stand-in for electron-updater 6.8's autoUpdater that decides the install at quit the way it
 * does (node_modules/electron-updater/out): `autoInstallOnAppQuit` is read once when a download
 * completes. On Windows and Linux (BaseUpdater.executeDownload → addQuitHandler) a true flag adds
 * a handler on the app's `quit` event that reads the flag again then and installs the last file
 * downloaded; on macOS (MacUpdater.updateDownloaded) a true flag hands the file to Squirrel.Mac,
 * which installs it at quit whatever the flag says later.
 */
class FakeUpdater {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  logger: UpdateSource['logger'] = console;
  checks = 0;
  downloads = 0;
  available: string | null = null;
  failNextCheck = false;
  hangNextCheck = false;
  failNextDownload = false;
  /** When set, downloads wait for it before they complete. */
  downloadGate: Promise<void> | null = null;
  /** Ends the check that hangs (hangNextCheck) the way its request's socket timeout would: it fails. */
  endHungCheck: (() => void) | null = null;
  private inFlight: Promise<{ isUpdateAvailable: boolean; updateInfo: { version: string } }> | null = null;
  private file: string | null = null;
  private quitHandlerAdded = false;
  private squirrelHas: string | null = null;

  constructor(readonly platform: Platform = 'linux') {}

  checkForUpdates() {
    this.checks += 1;
    // electron-updater keeps one check in flight and hands a later caller the same promise
    // (AppUpdater.checkForUpdates: "Checking for update (already in progress)").
    if (this.inFlight) return this.inFlight;
    const answer = this.answer().finally(() => (this.inFlight = null));
    this.inFlight = answer;
    return answer;
  }

  private async answer() {
    if (this.hangNextCheck) {
      this.hangNextCheck = false;
      await new Promise<never>((_, reject) => {
        this.endHungCheck = () => reject(new Error('socket timeout'));
      });
    }
    if (this.failNextCheck) {
      this.failNextCheck = false;
      // electron-updater logs a failure through its logger, then rejects.
      this.logger?.error('Error: net::ERR_INTERNET_DISCONNECTED');
      throw new Error('net::ERR_INTERNET_DISCONNECTED');
    }
    const version = this.available ?? '0.1.0';
    return { isUpdateAvailable: this.available !== null, updateInfo: { version } };
  }

  async downloadUpdate() {
    this.downloads += 1;
    const version = this.available!;
    if (this.downloadGate) await this.downloadGate;
    if (this.failNextDownload) {
      this.failNextDownload = false;
      this.logger?.error('Error: sha512 checksum mismatch');
      throw new Error('sha512 checksum mismatch');
    }
    // The download is done: what electron-updater does then, reading the flag as it is now.
    this.file = version;
    if (this.platform === 'darwin') {
      if (this.autoInstallOnAppQuit) this.squirrelHas = version;
    } else if (!this.quitHandlerAdded && this.autoInstallOnAppQuit) {
      this.quitHandlerAdded = true;
    }
    return [`/tmp/Drover-${version}.zip`];
  }

  /** The app quits with exit code 0: the version electron-updater installs then, or null. */
  quit(): string | null {
    if (this.platform === 'darwin') return this.squirrelHas;
    return this.quitHandlerAdded && this.autoInstallOnAppQuit ? this.file : null;
  }
}

function start(fake: FakeUpdater, enabled: () => boolean) {
  const lines: string[] = [];
  const stop = startUpdates({
    enabled,
    log: (line) => lines.push(line),
    updater: fake as unknown as UpdateSource,
    platform: fake.platform,
  });
  return { lines, stop };
}

describe('auto-update', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('takes download and install out of electron-updater’s hands and sends its logging to our log', () => {
    const fake = new FakeUpdater();
    const { stop } = start(fake, () => false);
    expect(fake.autoDownload).toBe(false);
    expect(fake.autoInstallOnAppQuit).toBe(false);
    expect(fake.logger).not.toBe(console);
    stop();
  });

  it('never checks, downloads or installs while the setting is off', async () => {
    const fake = new FakeUpdater();
    fake.available = '0.2.0';
    const { stop } = start(fake, () => false);
    await vi.advanceTimersByTimeAsync(3 * CHECK_EVERY_MS);
    expect(fake.checks).toBe(0);
    expect(fake.downloads).toBe(0);
    stop();
    expect(fake.quit()).toBeNull();
  });

  it.each<Platform>(['linux', 'win32', 'darwin'])(
    'checks at start, downloads a newer version and installs it at quit (%s)',
    async (platform) => {
      const fake = new FakeUpdater(platform);
      fake.available = '0.2.0';
      const { lines, stop } = start(fake, () => true);
      await vi.advanceTimersByTimeAsync(0);
      expect(fake.checks).toBe(1);
      expect(fake.downloads).toBe(1);
      expect(lines.join('\n')).toContain('Drover 0.2.0 is downloaded and will be installed when Drover quits.');
      stop();
      expect(fake.quit()).toBe('0.2.0');
    },
  );

  it('checks again every few hours, not more often, and downloads the same version once', async () => {
    const fake = new FakeUpdater();
    fake.available = '0.2.0';
    const { stop } = start(fake, () => true);
    await vi.advanceTimersByTimeAsync(CHECK_EVERY_MS - SETTING_READ_EVERY_MS);
    expect(fake.checks).toBe(1);
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.checks).toBe(2);
    expect(fake.downloads).toBe(1);
    stop();
  });

  it('starts checking once the person turns the setting on, and installs at quit only while it is on', async () => {
    const fake = new FakeUpdater('win32');
    fake.available = '0.2.0';
    let on = false;
    const { stop } = start(fake, () => on);
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.checks).toBe(0);
    on = true;
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.checks).toBe(1);
    expect(fake.quit()).toBe('0.2.0');
    on = false;
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.quit()).toBeNull();
    on = true;
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.quit()).toBe('0.2.0');
    stop();
  });

  it('reads the setting once more on the way to quitting, between two readings', async () => {
    const fake = new FakeUpdater('linux');
    fake.available = '0.2.0';
    let on = true;
    const { stop } = start(fake, () => on);
    await vi.advanceTimersByTimeAsync(0);
    on = false;
    stop();
    expect(fake.quit()).toBeNull();
  });

  it('does not install an update whose download finished after the setting was turned off', async () => {
    const fake = new FakeUpdater('linux');
    fake.available = '0.2.0';
    let finish = () => {};
    fake.downloadGate = new Promise<void>((resolve) => (finish = resolve));
    let on = true;
    const { lines, stop } = start(fake, () => on);
    await vi.advanceTimersByTimeAsync(0);
    on = false;
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.quit()).toBeNull();
    expect(lines.join('\n')).not.toContain('will be installed');
    // Taken by electron-updater all the same: turning updates on again installs it at quit.
    on = true;
    stop();
    expect(fake.quit()).toBe('0.2.0');
  });

  it('on macOS, says in the log that an update already handed to the system is installed at quit', async () => {
    const fake = new FakeUpdater('darwin');
    fake.available = '0.2.0';
    let on = true;
    const { lines, stop } = start(fake, () => on);
    await vi.advanceTimersByTimeAsync(0);
    on = false;
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    stop();
    // Squirrel.Mac cannot be asked to give it back (see startUpdates).
    expect(fake.quit()).toBe('0.2.0');
    const told = lines.filter((line) => line.includes("already handed to macOS's installer"));
    expect(told).toHaveLength(1);
  });

  it('keeps a failed check to the log and tries again at the next interval', async () => {
    const fake = new FakeUpdater();
    fake.failNextCheck = true;
    const { lines, stop } = start(fake, () => true);
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.some((line) => line.includes('ERR_INTERNET_DISCONNECTED'))).toBe(true);
    await vi.advanceTimersByTimeAsync(CHECK_EVERY_MS);
    expect(fake.checks).toBe(2);
    stop();
  });

  it('gives up on a check that never answers, so that later checks still happen', async () => {
    const fake = new FakeUpdater();
    fake.hangNextCheck = true;
    fake.available = '0.2.0';
    const { lines, stop } = start(fake, () => true);
    await vi.advanceTimersByTimeAsync(CHECK_GIVE_UP_MS);
    expect(lines.some((line) => line.includes('did not answer'))).toBe(true);
    // electron-updater's own request ends some time later; Drover has stopped waiting for it.
    fake.endHungCheck!();
    await vi.advanceTimersByTimeAsync(CHECK_EVERY_MS);
    expect(fake.checks).toBe(2);
    expect(fake.downloads).toBe(1);
    stop();
    expect(fake.quit()).toBe('0.2.0');
  });

  it('installs nothing after a failed download, and downloads again at the next check', async () => {
    const fake = new FakeUpdater('linux');
    fake.available = '0.2.0';
    fake.failNextDownload = true;
    const { lines, stop } = start(fake, () => true);
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.some((line) => line.includes('checksum mismatch'))).toBe(true);
    expect(fake.autoInstallOnAppQuit).toBe(false);
    expect(fake.quit()).toBeNull();
    await vi.advanceTimersByTimeAsync(CHECK_EVERY_MS);
    expect(fake.downloads).toBe(2);
    stop();
    expect(fake.quit()).toBe('0.2.0');
  });

  it('treats a setting that cannot be read as off', async () => {
    const fake = new FakeUpdater();
    const { lines, stop } = start(fake, () => {
      throw new Error('database is closed');
    });
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.checks).toBe(0);
    expect(lines[0]).toContain('stay off');
    stop();
  });

  it('stops checking once stopped', async () => {
    const fake = new FakeUpdater();
    const { stop } = start(fake, () => true);
    await vi.advanceTimersByTimeAsync(0);
    stop();
    await vi.advanceTimersByTimeAsync(3 * CHECK_EVERY_MS);
    expect(fake.checks).toBe(1);
  });
});
