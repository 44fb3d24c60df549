import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetLimits, loadSettings, SettingsService } from '../../electron/core/settings.js';
import { createServices, type Services } from '../../electron/core/services.js';
import { SettingsUpdateSchema } from '../../shared/schemas/settings.js';
import type { SecretStore } from '../../electron/core/secrets.js';
import { tempDir } from '../helpers.js';

function memorySecrets(initial: string | null = null): SecretStore {
  let value = initial;
  return {
    get: () => value,
    set: (next: string | null) => void (value = next),
  } as unknown as SecretStore;
}

function serviceIn(dir: string, overrides = {}): SettingsService {
  return new SettingsService(dir, memorySecrets(), loadSettings(dir), {}, overrides);
}

const fileOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>;

describe('settings writes', () => {
  it('shows each figure in force with its default and source, and a saved one as from settings.json', () => {
    const dir = tempDir();
    const settings = serviceIn(dir);
    expect(settings.publicView().inForce.background.foregroundWaitSeconds).toEqual({
      value: 30,
      default: 30,
      source: 'default',
    });
    expect(settings.publicView().inForce.agent.maxWakesPerSession.source).toBe('default');
    const view = settings.update(SettingsUpdateSchema.parse({ background: { foregroundWaitSeconds: 12 } }));
    expect(view.inForce.background.foregroundWaitSeconds).toEqual({ value: 12, default: 30, source: 'settings' });
    expect(settings.poolPolicy().foregroundWaitMs).toBe(12_000);
    expect(fileOf(dir)).toEqual({ background: { foregroundWaitSeconds: 12 } });
  });

  it('keeps every other key of the file, including ones edited by hand since the start', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({ host: { maxInFlightPerConnection: 8 }, background: { maxConcurrent: 3 } }),
    );
    const settings = serviceIn(dir);
    // Edited by hand while Drover runs.
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({
        host: { maxInFlightPerConnection: 8 },
        background: { maxConcurrent: 3 },
        commandAllowlist: ['make'],
      }),
    );
    settings.update(SettingsUpdateSchema.parse({ background: { stopGraceSeconds: 2 } }));
    expect(fileOf(dir)).toEqual({
      host: { maxInFlightPerConnection: 8 },
      background: { maxConcurrent: 3, stopGraceSeconds: 2 },
      commandAllowlist: ['make'],
    });
  });

  it('takes a figure out of the file on null (back to its default), and drops an emptied section', () => {
    const dir = tempDir();
    const settings = serviceIn(dir);
    settings.update(
      SettingsUpdateSchema.parse({
        background: { maxConcurrent: 2, enabled: false },
        agent: { maxWakesPerSession: 3 },
      }),
    );
    settings.update(SettingsUpdateSchema.parse({ background: { maxConcurrent: null } }));
    expect(fileOf(dir)).toEqual({ background: { enabled: false }, agent: { maxWakesPerSession: 3 } });
    const view = settings.update(
      SettingsUpdateSchema.parse({ background: { enabled: null }, agent: { maxWakesPerSession: null } }),
    );
    expect(fileOf(dir)).toEqual({});
    expect(view.inForce.background.maxConcurrent).toEqual({ value: 5, default: 5, source: 'default' });
  });

  it('reads the old wake-up cap as the budget’s turns when budget.turns is not set', () => {
    const dir = tempDir();
    const settings = serviceIn(dir);
    expect(budgetLimits(settings.current)).toEqual({ turns: 50, tokens: 2_000_000 });
    let view = settings.update(SettingsUpdateSchema.parse({ agent: { maxWakesPerSession: 0 } }));
    expect(budgetLimits(settings.current).turns).toBe(1);
    expect(view.inForce.budget.turns).toEqual({ value: 1, default: 50, source: 'settings' });
    // Setting the budget's turns takes the old figure out of the file; Reset then means the default.
    settings.update(SettingsUpdateSchema.parse({ budget: { turns: 30 } }));
    expect(budgetLimits(settings.current).turns).toBe(30);
    expect(fileOf(dir)).toEqual({ budget: { turns: 30 } });
    settings.update(SettingsUpdateSchema.parse({ agent: { maxWakesPerSession: 12 } }));
    view = settings.update(SettingsUpdateSchema.parse({ budget: { turns: null } }));
    expect(fileOf(dir)).toEqual({});
    expect(view.inForce.budget.turns).toEqual({ value: 50, default: 50, source: 'default' });
  });

  it('refuses a shortest sleep longer than the longest per call, naming the field, defaults counted', () => {
    const dir = tempDir();
    const settings = serviceIn(dir);
    expect(() => settings.update(SettingsUpdateSchema.parse({ sleep: { minSeconds: 900 } }))).toThrow(
      /sleep\.minSeconds: the shortest sleep \(900 s\) may not be longer than the longest per call \(600 s\)/,
    );
    settings.update(SettingsUpdateSchema.parse({ sleep: { minSeconds: 60, maxSeconds: 120 } }));
    try {
      settings.update(SettingsUpdateSchema.parse({ sleep: { maxSeconds: 30 } }));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_input', path: 'sleep.maxSeconds' });
    }
    settings.update(SettingsUpdateSchema.parse({ sleep: { maxSeconds: -1, minSeconds: 3600 } }));
    expect(fileOf(dir)).toEqual({ sleep: { minSeconds: 3600, maxSeconds: -1 } });
  });

  it('refuses a figure out of bounds naming the field, with the schema of the file', () => {
    const parsed = SettingsUpdateSchema.safeParse({ background: { maxConcurrent: 0 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['background', 'maxConcurrent']);
    expect(SettingsUpdateSchema.safeParse({ background: { maxConcurrent: 2.5 } }).success).toBe(false);
    expect(SettingsUpdateSchema.safeParse({ background: { bogus: 1 } }).success).toBe(false);
  });

  it('says why an unusable file was not used, and keeps it aside at the next save', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'settings.json'), '{ // a comment\n "background": {} }');
    const settings = serviceIn(dir);
    expect(settings.publicView().fileProblem).toMatch(/not valid JSON/);
    settings.update(SettingsUpdateSchema.parse({ background: { maxConcurrent: 4 } }));
    const aside = readdirSync(dir).find((name) => name.startsWith('settings.json.unreadable-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(dir, aside!), 'utf8')).toContain('// a comment');
    expect(settings.publicView().fileProblem).toMatch(/kept as .*unreadable-/);
    expect(fileOf(dir)).toEqual({ background: { maxConcurrent: 4 } });
  });

  it('shows a figure Drover was started with as an override the file does not change', () => {
    const dir = tempDir();
    const settings = serviceIn(dir, { stopGraceMs: 500 });
    expect(settings.publicView().inForce.background.stopGraceSeconds).toEqual({
      value: 0.5,
      default: 5,
      source: 'override',
    });
    settings.update(SettingsUpdateSchema.parse({ background: { stopGraceSeconds: 9 } }));
    expect(settings.poolPolicy().stopGraceMs).toBe(500);
  });

  it('writes nothing when no settings.json change is asked for a bad field', () => {
    const dir = tempDir();
    serviceIn(dir);
    expect(SettingsUpdateSchema.safeParse({ background: { foregroundWaitSeconds: 0 } }).success).toBe(false);
    expect(existsSync(join(dir, 'settings.json'))).toBe(false);
  });
});

describe('a saved change reaches the pool without a restart', () => {
  let services: Services | undefined;
  afterEach(async () => {
    await services?.shutdown();
    services = undefined;
  });

  it('applies new figures at once and through the contract', async () => {
    const dir = tempDir();
    services = createServices({
      dataDir: dir,
      version: 't',
      host: 'headless',
      workingDir: dir,
      env: {},
      warn: () => {},
    });
    expect(services.pool.policy.maxConcurrent).toBe(5);
    const result = await services.handle('updateSettings', {
      background: { maxConcurrent: 2, foregroundWaitSeconds: 7 },
    });
    expect(result.ok).toBe(true);
    expect(services.pool.policy.maxConcurrent).toBe(2);
    expect(services.pool.policy.foregroundWaitMs).toBe(7000);
    await services.handle('updateSettings', { background: { maxConcurrent: null } });
    expect(services.pool.policy.maxConcurrent).toBe(5);
    const bad = await services.handle('updateSettings', { background: { maxConcurrent: 999 } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error.path).toBe('background.maxConcurrent');
    expect(fileOf(dir)).toEqual({ background: { foregroundWaitSeconds: 7 } });
  });
  it('keeps the desktop choices: tray by default, quit or tray saved, updates off until turned on', () => {
    const dir = tempDir();
    const settings = serviceIn(dir);
    expect(settings.publicView().desktop).toEqual({ whenClosed: 'tray', autoUpdate: false });
    settings.update(SettingsUpdateSchema.parse({ desktop: { whenClosed: 'quit' } }));
    const view = settings.update(SettingsUpdateSchema.parse({ desktop: { autoUpdate: true } }));
    expect(view.desktop).toEqual({ whenClosed: 'quit', autoUpdate: true });
    expect(fileOf(dir)).toEqual({ desktop: { whenClosed: 'quit', autoUpdate: true } });
    expect(settings.current.desktop?.whenClosed).toBe('quit');
    // An unknown choice or key is refused naming it, and nothing stored changes.
    const badChoice = SettingsUpdateSchema.safeParse({ desktop: { whenClosed: 'minimise' } });
    expect(badChoice.success).toBe(false);
    expect(!badChoice.success && badChoice.error.issues[0]!.path).toEqual(['desktop', 'whenClosed']);
    const badKey = SettingsUpdateSchema.safeParse({ desktop: { closeToTray: true } });
    expect(!badKey.success && badKey.error.issues[0]!.message).toMatch(/closeToTray/);
    expect(fileOf(dir)).toEqual({ desktop: { whenClosed: 'quit', autoUpdate: true } });
  });
});
