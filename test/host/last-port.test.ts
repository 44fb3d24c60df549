import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAST_PORT_FILE, portUnavailable, readLastPort, saveLastPort } from '../../electron/host/last-port.js';
import { spawnHost } from './spawn-host.js';
import { tempDir } from '../helpers.js';

const portOf = (base: string) => Number(new URL(base).port);

describe("the host's last port", () => {
  it('reads back what was saved, and nothing from a missing or damaged file', () => {
    const dataDir = tempDir();
    expect(readLastPort(dataDir)).toBeUndefined();
    saveLastPort(dataDir, 41234);
    expect(readLastPort(dataDir)).toBe(41234);
    expect(statSync(join(dataDir, LAST_PORT_FILE)).mode & 0o077).toBe(0);
    for (const text of ['', 'eighty', '0', '70000', '123456', '12 34', '-5', '4.5']) {
      writeFileSync(join(dataDir, LAST_PORT_FILE), text);
      expect(readLastPort(dataDir)).toBeUndefined();
    }
    writeFileSync(join(dataDir, LAST_PORT_FILE), ' 8123\n');
    expect(readLastPort(dataDir)).toBe(8123);
  });

  it('moves to another port only when that one cannot be had', () => {
    const failure = (code: string) => Object.assign(new Error(code), { code });
    expect(['EADDRINUSE', 'EACCES'].map((code) => portUnavailable(failure(code)))).toEqual([true, true]);
    expect(['EADDRNOTAVAIL', 'EMFILE'].map((code) => portUnavailable(failure(code)))).toEqual([false, false]);
    expect(portUnavailable(new Error('no code'))).toBe(false);
    expect(portUnavailable(null)).toBe(false);
  });

  it('saving into a folder that cannot take the file is not an error', () => {
    const file = join(tempDir(), 'not-a-folder');
    writeFileSync(file, 'x');
    expect(() => saveLastPort(file, 8123)).not.toThrow();
  });

  it('a restarted host listens where it did before, and on any free port when that one is taken', async () => {
    const dataDir = tempDir('drover-last-port-');
    const first = await spawnHost(dataDir);
    const port = portOf(first.base);
    expect(readFileSync(join(dataDir, LAST_PORT_FILE), 'utf8')).toBe(`${port}\n`);
    expect(await first.stop()).toBe(0);

    const second = await spawnHost(dataDir);
    expect(portOf(second.base)).toBe(port);
    expect(await second.stop()).toBe(0);

    // Another program holds the port now.
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const third = await spawnHost(dataDir);
      const moved = portOf(third.base);
      expect(moved).not.toBe(port);
      expect((await third.call('GET', '/info')).version).toBeTruthy();
      expect(readLastPort(dataDir)).toBe(moved);
      expect(await third.stop()).toBe(0);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);
});
