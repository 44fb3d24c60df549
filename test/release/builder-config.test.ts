import { resolve } from 'node:path';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';
import { describe, expect, it } from 'vitest';

// test/packaging.test.ts checks electron-builder.yml against the schema; this asks electron-builder's
// own loader which file it reads and what it makes of the command-line overrides the workflow passes.
const root = resolve(import.meta.dirname, '..', '..');
/** electron-builder's validator compiles its whole schema first: seconds, more on a busy machine. */
const VALIDATE_TIMEOUT_MS = 60_000;

describe("electron-builder's own reading of the configuration", () => {
  it(
    'loads electron-builder.yml and accepts it',
    async () => {
      const config = await getConfig(root, null, null);
      expect(config.appId).toBe('dev.drover.app');
      await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    },
    VALIDATE_TIMEOUT_MS,
  );

  it('names the deb’s maintainer with an email address, as Debian’s Maintainer field requires', async () => {
    const config = await getConfig(root, null, null);
    // electron-builder passes linux.maintainer to fpm as it is; "Name <address>" is the Debian form.
    expect(config.linux?.maintainer).toMatch(/^[^<>@]+ <[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>$/);
  });

  it('merges the workflow’s -c overrides into the publish and mac options instead of replacing them', async () => {
    const config = await getConfig(root, null, {
      publish: { provider: 'github', owner: 'someone', repo: 'drover' },
      mac: { identity: '-' },
    });
    expect(config.publish).toEqual({ provider: 'github', releaseType: 'draft', owner: 'someone', repo: 'drover' });
    expect(config.mac).toMatchObject({ identity: '-', notarize: true, hardenedRuntime: true, icon: 'build/icon.icns' });
  });
});
