import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHostArgs, stdinUnfitForExit } from '../../electron/host/cli.js';
import { tempDir } from '../helpers.js';
import { defaultDataDir } from '../../electron/core/paths.js';

describe('host flags', () => {
  it('leaves the port to the host (last-port.ts), with no data dir and no fixed token', () => {
    expect(parseHostArgs([], {})).toEqual({
      port: undefined,
      dataDir: undefined,
      token: undefined,
      cwd: undefined,
      exitWithStdin: false,
      help: false,
    });
  });

  it('reads port, data dir and token', () => {
    expect(parseHostArgs(['--port', '8123', '--data-dir', '/tmp/d', '--token', 'abcdefghijklmnop'], {})).toEqual({
      port: 8123,
      dataDir: '/tmp/d',
      token: 'abcdefghijklmnop',
      cwd: undefined,
      exitWithStdin: false,
      help: false,
    });
    expect(parseHostArgs([], { DROVER_TOKEN: 'fromtheenvironment' }).token).toBe('fromtheenvironment');
    expect(parseHostArgs(['--port', '0'], {}).port).toBe(0);
  });

  it('takes a token that starts with a dash when given as --token=…', () => {
    expect(parseHostArgs(['--token=-abcdefghijklmnop'], {}).token).toBe('-abcdefghijklmnop');
  });

  it('stops with its standard input only when asked to', () => {
    expect(parseHostArgs(['--exit-with-stdin'], {}).exitWithStdin).toBe(true);
    expect(() => parseHostArgs(['--exit-with-stdin=no'], {})).toThrow(/exit-with-stdin/);
  });

  it('takes only a pipe or a socket as the input whose end stops the host', () => {
    const dir = tempDir();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(stdinUnfitForExit(statSync(fifo))).toBeNull();
    const file = join(dir, 'file');
    writeFileSync(file, '');
    expect(stdinUnfitForExit(statSync(file))).toBe('it is a file');
    expect(stdinUnfitForExit(statSync('/dev/null'))).toMatch(/terminal or a device/);
    expect(stdinUnfitForExit(statSync(dir))).toBe('it is neither a pipe nor a socket');
    expect(stdinUnfitForExit(null)).toBe('it is closed');
  });

  it('names a bad flag', () => {
    expect(() => parseHostArgs(['--port', 'eighty'], {})).toThrow(/--port/);
    expect(() => parseHostArgs(['--port', '70000'], {})).toThrow(/--port/);
    expect(() => parseHostArgs(['--token', 'short'], {})).toThrow(/--token/);
    expect(() => parseHostArgs(['--colour'], {})).toThrow(/colour/);
  });

  it('follows the platform for the default data folder', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux')).toBe('/xdg/drover');
    expect(defaultDataDir({ XDG_DATA_HOME: 'relative' }, 'linux')).toMatch(/\.local\/share\/drover$/);
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32')).toMatch(/Drover$/);
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/Drover$/);
  });
});

describe('fresh tokens', () => {
  it('never start with a dash', async () => {
    const { newToken } = await import('../../electron/host/auth.js');
    for (let i = 0; i < 200; i++) expect(newToken()).toMatch(/^[0-9a-f]{48}$/);
  });
});
