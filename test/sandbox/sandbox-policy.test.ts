/**
 * Bad input to the sandbox's policy (issue 19, "Bad input and faults"): a change with an unknown
 * key, a bad path or a bad host is refused with the key named, and the last good policy stays in
 * force, for the settings and for the commands that run under it. A settings.json edited by hand
 * is checked the same way when Drover starts.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IpcError } from '../../shared/ipc/errors.js';
import {
  DEFAULT_ALLOWED_HOSTS,
  DEFAULT_DENY_READ,
  SANDBOX_DEFAULTS,
  type SessionSandbox,
} from '../../shared/schemas/sandbox.js';
import type { PublicSettings } from '../../shared/schemas/settings.js';
import { tempDir } from '../helpers.js';
import { SECRET, sandboxServices, sandboxWorld, type SandboxWorld } from './sandbox-harness.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder outside the working and temp folders, for the policy to make writable. */
function cacheFolder(): string {
  mkdirSync('/var/tmp', { recursive: true });
  const folder = mkdtempSync('/var/tmp/drover-sandbox-cache-');
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** The error a request answers with; fails the test when it succeeds. */
async function refusal(world: Pick<SandboxWorld, 'services'>, name: string, input: unknown): Promise<IpcError> {
  const result = await world.services.handle(name as never, input as never);
  expect(result.ok, `${name} ${JSON.stringify(input)} should be refused`).toBe(false);
  return (result as { ok: false; error: IpcError }).error;
}

async function sandboxSettings(world: SandboxWorld): Promise<PublicSettings['sandbox']> {
  return (await world.call<PublicSettings>('getSettings', {})).sandbox;
}

describe("the sandbox's policy refuses bad input by name", () => {
  it('an unknown key, a bad path or a bad host is refused naming it; the last good policy stays, and commands run under it', async () => {
    const cache = cacheFolder();
    const world = await sandboxWorld({
      denyRead: [...DEFAULT_DENY_READ, '~/private'],
      writablePaths: [cache],
      allowedHosts: ['registry.npmjs.org', '127.0.0.1:9'],
    });
    mkdirSync(join(world.home, 'private'));
    writeFileSync(join(world.home, 'private', 'note.txt'), 'PRIVATE-NOTE-31');
    const good = await sandboxSettings(world);
    expect(good.writablePaths).toEqual([cache]);
    const settingsFile = join(world.dataDir, 'settings.json');
    const fileBefore = readFileSync(settingsFile, 'utf8');
    const viewBefore = await world.call('getSandbox', { sessionId: world.sessionId });

    const bad: { change: Record<string, unknown>; path: string; says: RegExp }[] = [
      { change: { unknownKey: 1 }, path: 'sandbox.unknownKey', says: /not a known field/ },
      // A good field beside a bad one is not applied either: the change is all or nothing.
      { change: { enabled: false, denyRead: ['~/ok', 'relative/x'] }, path: 'sandbox.denyRead.1', says: /absolute/ },
      { change: { writablePaths: [cache, '/var/tmp/../etc'] }, path: 'sandbox.writablePaths.1', says: /\.\./ },
      { change: { writablePaths: ['/var/tmp/cache-*'] }, path: 'sandbox.writablePaths.0', says: /glob/ },
      { change: { denyRead: ['/etc/x\ny'] }, path: 'sandbox.denyRead.0', says: /control characters/ },
      { change: { allowUnixSockets: ['/run/\u0007docker.sock'] }, path: 'sandbox.allowUnixSockets.0', says: /control/ },
      { change: { allowedHosts: ['pypi.org', 'http://x'] }, path: 'sandbox.allowedHosts.1', says: /./ },
      { change: { allowedHosts: ['a b'] }, path: 'sandbox.allowedHosts.0', says: /not a host name/ },
      { change: { allowedHosts: ['pypi.org', 'crates.io', '[::1'] }, path: 'sandbox.allowedHosts.2', says: /IPv6/ },
      { change: { allowedHosts: ['example.com:70000'] }, path: 'sandbox.allowedHosts.0', says: /port/ },
      { change: { runWithoutAsking: 'yes' }, path: 'sandbox.runWithoutAsking', says: /boolean/ },
    ];
    for (const { change, path, says } of bad) {
      const error = await refusal(world, 'updateSettings', { sandbox: change });
      expect(error.code).toBe('invalid_input');
      expect(error.path, JSON.stringify(change)).toBe(path);
      expect(error.message).toContain(path);
      expect(error.message).toMatch(says);
      expect(await sandboxSettings(world)).toEqual(good);
      expect(readFileSync(settingsFile, 'utf8')).toBe(fileBefore);
    }
    expect(await world.call('getSandbox', { sessionId: world.sessionId })).toEqual(viewBefore);

    // The policy in force is still the last good one: the private folder is denied, the cache is writable.
    const result = await world.run(
      [
        'cat ~/private/note.txt; echo "private=$?"',
        `echo cached > '${cache}/made.txt'; echo "cache=$?"`,
        `echo out > '${world.outside}/escaped.txt'; echo "outside=$?"`,
      ].join('\n'),
    );
    expect(result.row.sandboxed).toBe(true);
    expect(result.output).not.toContain('PRIVATE-NOTE-31');
    expect(result.output).toMatch(/private=[1-9]/);
    expect(result.output).toContain('cache=0');
    expect(readFileSync(join(cache, 'made.txt'), 'utf8')).toBe('cached\n');
    expect(result.output).toMatch(/outside=[1-9]/);
    expect(existsSync(join(world.outside, 'escaped.txt'))).toBe(false);
  }, 60_000);

  it('null takes a key back to its default', async () => {
    const world = await sandboxWorld({ allowedHosts: ['example.com'], runWithoutAsking: true, denyRead: ['~/only'] });
    expect(await sandboxSettings(world)).toMatchObject({
      allowedHosts: ['example.com'],
      runWithoutAsking: true,
      denyRead: ['~/only'],
    });
    await world.call('updateSettings', { sandbox: { allowedHosts: null, runWithoutAsking: null } });
    const settings = await sandboxSettings(world);
    expect(settings.allowedHosts).toEqual([...DEFAULT_ALLOWED_HOSTS]);
    expect(settings.runWithoutAsking).toBe(false);
    // A key not named keeps its value.
    expect(settings.denyRead).toEqual(['~/only']);
    const file = JSON.parse(readFileSync(join(world.dataDir, 'settings.json'), 'utf8')) as { sandbox?: object };
    expect(file.sandbox).toEqual({ denyRead: ['~/only'] });
  });

  it("a session's hosts: a bad host is refused by name, an unknown one is not_found, and so is an unknown session", async () => {
    const world = await sandboxWorld();
    for (const host of ['http://x', 'a b', '[::1', 'example.com:70000']) {
      const error = await refusal(world, 'allowSandboxHost', { sessionId: world.sessionId, host });
      expect(error).toMatchObject({ code: 'invalid_input', path: 'host' });
    }
    expect((await world.call<{ hosts: string[] }>('getSandbox', { sessionId: world.sessionId })).hosts).toEqual([]);

    const unknownHost = await refusal(world, 'removeSandboxHost', { sessionId: world.sessionId, host: 'nope.example' });
    expect(unknownHost).toMatchObject({ code: 'not_found', path: 'host' });
    expect(unknownHost.message).toContain('nope.example');

    // A host the settings allow is not the session's own: removing it here is not_found too, and it stays allowed.
    const fromSettings = await refusal(world, 'removeSandboxHost', {
      sessionId: world.sessionId,
      host: 'registry.npmjs.org',
    });
    expect(fromSettings.code).toBe('not_found');
    expect((await sandboxSettings(world)).allowedHosts).toContain('registry.npmjs.org');

    for (const [name, input] of [
      ['getSandbox', { sessionId: 'nosuchsession' }],
      ['allowSandboxHost', { sessionId: 'nosuchsession', host: 'example.com' }],
      ['removeSandboxHost', { sessionId: 'nosuchsession', host: 'example.com' }],
    ] as const) {
      const error = await refusal(world, name, input);
      expect(error.code, name).toBe('not_found');
    }
  });
});

describe('a settings.json edited by hand with an unknown sandbox key', () => {
  it('is not used at start (the defaults apply, the sandbox on), the page is told why, and the file is kept aside at the next save', async () => {
    const dataDir = tempDir('drover-sandbox-data-');
    const work = tempDir('drover-sandbox-work-');
    const home = tempDir('drover-sandbox-home-');
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_rsa'), SECRET);
    const written = `${JSON.stringify(
      { commandAllowlist: ['echo kept'], sandbox: { enabled: false, denyRead: [], bogusKey: true } },
      null,
      2,
    )}\n`;
    const settingsFile = join(dataDir, 'settings.json');
    writeFileSync(settingsFile, written);
    const warnings: string[] = [];
    const services = sandboxServices({
      dataDir,
      workingDir: work,
      env: { HOME: home },
      warn: (message) => warnings.push(message),
    });
    const world = {
      services,
      call: async <T>(name: string, input: unknown): Promise<T> => {
        const result = await services.handle(name as never, input as never);
        if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
        return result.value as T;
      },
    };

    // Said at start, naming the section and the key.
    expect(warnings.join('\n')).toMatch(/settings\.json: sandbox: .*bogusKey.*using the defaults/);
    const settings = await world.call<PublicSettings>('getSettings', {});
    expect(settings.fileProblem).toMatch(/sandbox: .*bogusKey/);
    // The whole file is set aside in memory, not only its sandbox section: the defaults apply.
    expect(settings.sandbox).toEqual(SANDBOX_DEFAULTS);
    expect(settings.commandAllowlist).toEqual([]);
    // Left as it is until the next save.
    expect(readFileSync(settingsFile, 'utf8')).toBe(written);
    expect(readdirSync(dataDir).filter((name) => name.includes('unreadable'))).toEqual([]);

    // The sandbox is on, with the default deny list: the file's `enabled: false` and empty list are not in force.
    const session = await world.call<{ id: string }>('createSession', { title: 'hand-edited' });
    const view = await world.call<SessionSandbox>('getSandbox', { sessionId: session.id });
    expect(view.policy).toEqual(SANDBOX_DEFAULTS);
    expect(view.active).toBe(true);
    const record = await services.pool.start({
      sessionId: session.id,
      command: `cat '${join(home, '.ssh', 'id_rsa')}'; echo "exit=$?"`,
      cwd: work,
      tty: false,
      sandboxed: view.active,
    });
    await services.pool.waitFor(record.id, 30_000);
    const row = services.pool.row(session.id, record.id);
    const output = (await services.pool.output(session.id, record.id)).text;
    expect(row.sandboxed).toBe(true);
    expect(output).not.toContain(SECRET);
    expect(output).toMatch(/exit=[1-9]/);

    // The next save keeps the hand-written file aside, whole, and says where.
    await world.call('updateSettings', { sandbox: { runWithoutAsking: false } });
    const aside = readdirSync(dataDir).find((name) => name.startsWith('settings.json.unreadable-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(dataDir, aside!), 'utf8')).toBe(written);
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual({ sandbox: { runWithoutAsking: false } });
    expect((await world.call<PublicSettings>('getSettings', {})).fileProblem).toContain(aside!);
  }, 60_000);
});
