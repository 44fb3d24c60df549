import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DATABASE_FILE, openDatabase, StoreOpenError } from '../../electron/store/database.js';
import { electronModule, updaterModule } from './fake-electron/index.js';
import { currentFake, startDesktop } from './desktop-harness.js';

vi.mock('electron', () => electronModule(currentFake));
vi.mock('electron-updater', () => updaterModule(currentFake));

const KEY = 'sk-ant-test-0123456789';
const provider = { kind: 'anthropic', model: 'claude-test', apiKey: KEY };

describe('the desktop store and secrets under the fake Electron', () => {
  it.runIf(process.platform === 'linux')(
    "refuses to store the API key with Linux's basic_text backend: the reason is said and nothing is written",
    async () => {
      const { call, userData } = await startDesktop({
        configure: (fake) => (fake.safeStorage.backend = 'basic_text'),
      });
      const before = readdirSync(userData).sort();
      const result = await call('updateSettings', { provider });
      expect(result).toMatchObject({
        ok: false,
        error: {
          code: 'unavailable',
          message: expect.stringContaining(
            'no keyring (only the basic_text backend), so the key would not be protected',
          ),
        },
      });
      expect(existsSync(join(userData, 'secrets.bin'))).toBe(false);
      expect(readdirSync(userData).sort()).toEqual(before);
      for (const name of readdirSync(userData).filter((file) => file.endsWith('.json')))
        expect(readFileSync(join(userData, name), 'utf8')).not.toContain(KEY);
    },
  );

  it('stores the key encrypted when the OS keychain protects it (the control)', async () => {
    const { ok, userData, fake } = await startDesktop();
    expect(await ok('updateSettings', { provider })).toMatchObject({
      provider: { hasApiKey: true, keySource: 'settings' },
    });
    const stored = readFileSync(join(userData, 'secrets.bin'));
    expect(stored.toString('utf8')).not.toContain(KEY);
    expect(fake.safeStorage.decryptString(stored)).toBe(KEY);
  });

  it('a damaged database shows the error dialog with the store’s message, and exits 1 without a window', async () => {
    const garbage = Buffer.from('this is not a SQLite database, only words where pages should be\n'.repeat(200));
    const desktop = await startDesktop({
      prepareUserData: (userData) => writeFileSync(join(userData, DATABASE_FILE), garbage),
      expectWindow: false,
    });
    expect(await desktop.exited()).toBe(1);
    expect(desktop.fake.app.exitCalls).toEqual([1]);
    const { fake, userData } = desktop;
    expect(fake.dialog.errorBoxes).toHaveLength(1);
    const [box] = fake.dialog.errorBoxes;
    expect(box!.title).toBe('Drover');
    expect(box!.content).toContain(join(userData, DATABASE_FILE));
    expect(box!.content).not.toMatch(/^Drover could not start/);
    expect(fake.windows.all).toEqual([]);
    // The file is left exactly as found, for the person to keep or move.
    expect(readFileSync(join(userData, DATABASE_FILE)).equals(garbage)).toBe(true);
    // The store's own message, word for word.
    let thrown: unknown = null;
    try {
      openDatabase(join(userData, DATABASE_FILE)).close();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoreOpenError);
    expect(box!.content).toBe((thrown as StoreOpenError).message);
  });
});
