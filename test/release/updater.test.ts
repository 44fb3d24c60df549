import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHECK_EVERY_MS, SETTING_READ_EVERY_MS, startUpdates, type UpdateSource } from '../../electron/app/updater.js';

/** A stand-in for electron-updater's autoUpdater: it records calls and answers as told. */
class FakeUpdater {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  logger: UpdateSource['logger'] = console;
  checks = 0;
  downloads = 0;
  available: string | null = null;
  failNextCheck = false;

  async checkForUpdates() {
    this.checks += 1;
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
    return ['/tmp/Drover.zip'];
  }
}

function start(fake: FakeUpdater, enabled: () => boolean) {
  const lines: string[] = [];
  const stop = startUpdates({
    enabled,
    log: (line) => lines.push(line),
    updater: fake as unknown as UpdateSource,
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
    expect(fake.autoInstallOnAppQuit).toBe(false);
    stop();
  });

  it('checks at start, downloads a newer version and installs it at quit', async () => {
    const fake = new FakeUpdater();
    fake.available = '0.2.0';
    const { lines, stop } = start(fake, () => true);
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.checks).toBe(1);
    expect(fake.downloads).toBe(1);
    expect(fake.autoInstallOnAppQuit).toBe(true);
    expect(lines.join('\n')).toContain('Drover 0.2.0 is downloaded and will be installed when Drover quits.');
    stop();
  });

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

  it('starts checking once the person turns the setting on, and stops installing once they turn it off', async () => {
    const fake = new FakeUpdater();
    fake.available = '0.2.0';
    let on = false;
    const { stop } = start(fake, () => on);
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.checks).toBe(0);
    on = true;
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.checks).toBe(1);
    expect(fake.autoInstallOnAppQuit).toBe(true);
    on = false;
    await vi.advanceTimersByTimeAsync(SETTING_READ_EVERY_MS);
    expect(fake.autoInstallOnAppQuit).toBe(false);
    stop();
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
