import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  main: string;
  build?: unknown;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

type Target = string | { target: string };
interface PlatformConfig {
  target: Target[];
  icon: string;
  [key: string]: unknown;
}
interface BuilderConfig {
  directories: { buildResources: string; output: string };
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  npmRebuild: boolean;
  buildDependenciesFromSource: boolean;
  publish: { provider: string; releaseType: string };
  mac: PlatformConfig & { hardenedRuntime: boolean; notarize: boolean; entitlements: string };
  win: PlatformConfig;
  linux: PlatformConfig;
  nsis: { artifactName: string };
}

const configText = readFileSync(join(root, 'electron-builder.yml'), 'utf8');
const config = parse(configText) as BuilderConfig;
const schema = JSON.parse(readFileSync(join(root, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8')) as object;

/** The validator electron-builder's own schema gives: draft-07, unknown options refused (additionalProperties: false). */
let compiled: ReturnType<Ajv['compile']> | null = null;
/** Compiling the schema (about 10,000 lines) takes a second here, more on a busy machine. */
const COMPILE_TIMEOUT_MS = 60_000;
function validator() {
  compiled ??= new Ajv({ allErrors: true, strict: false }).compile(schema);
  return compiled;
}

const targetsOf = (platform: PlatformConfig) =>
  platform.target.map((target) => (typeof target === 'string' ? target : target.target));

// electron-builder cannot run here (it downloads Electron), so its configuration is checked statically.
describe('installer configuration', () => {
  it('is electron-builder.yml alone: package.json carries no competing "build" key', () => {
    expect(pkg.build).toBeUndefined();
  });

  it(
    "validates against electron-builder's own schema (node_modules/app-builder-lib/scheme.json)",
    () => {
      const validate = validator();
      expect(validate(config), JSON.stringify(validate.errors, null, 2)).toBe(true);
    },
    COMPILE_TIMEOUT_MS,
  );

  it('would refuse a misspelt option (the schema check itself works)', () => {
    const validate = validator();
    expect(validate({ ...config, mac: { ...config.mac, notarise: true } })).toBe(false);
    expect(validate({ ...config, asarUnpak: ['**/*.node'] })).toBe(false);
  });

  it('packs the built entry that package.json names', () => {
    expect(pkg.main).toBe('out/main/main.js');
    for (const folder of ['out/main/**', 'out/preload/**', 'out/renderer/**', 'package.json'])
      expect(config.files).toContain(folder);
  });

  it('builds dmg and zip for macOS, NSIS for Windows, AppImage and deb for Linux', () => {
    expect(targetsOf(config.mac)).toEqual(expect.arrayContaining(['dmg', 'zip']));
    expect(targetsOf(config.win)).toEqual(['nsis']);
    expect(targetsOf(config.linux)).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    // GitHub renames assets with spaces; latest.yml must name the file that was uploaded.
    expect(config.nsis.artifactName).not.toMatch(/\s/);
  });

  it('rebuilds native modules for Electron and unpacks them and the grammars from the asar', () => {
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(true);
    expect(config.buildDependenciesFromSource).toBe(false);
    for (const entry of [
      '**/*.node',
      '**/node_modules/@lydell/node-pty/**',
      '**/node_modules/@lydell/node-pty-*/**',
      '**/node_modules/better-sqlite3/build/Release/*.node',
      '**/node_modules/koffi/**',
      '**/node_modules/@koromix/koffi-*/**',
      'out/main/tree-sitter-bash.wasm',
      '**/node_modules/web-tree-sitter/*.wasm',
    ])
      expect(config.asarUnpack).toContain(entry);
  });

  it('unpacks the bash grammar at the path the shell parser looks for it', () => {
    // electron.vite.config.ts emits the grammar beside the main bundle; shell-parser.ts looks there.
    const vite = readFileSync(join(root, 'electron.vite.config.ts'), 'utf8');
    const parser = readFileSync(join(root, 'electron', 'permissions', 'shell-parser.ts'), 'utf8');
    expect(vite).toContain("fileName: 'tree-sitter-bash.wasm'");
    expect(vite).toContain("outDir: 'out/main'");
    expect(parser).toContain("join(folder, 'tree-sitter-bash.wasm')");
    expect(config.files).toContain('out/main/**');
    // And web-tree-sitter, a production dependency, finds its own runtime beside its module.
    expect(pkg.dependencies['web-tree-sitter']).toBeDefined();
    expect(existsSync(join(root, 'node_modules', 'web-tree-sitter', 'web-tree-sitter.wasm'))).toBe(true);
    expect(pkg.dependencies['tree-sitter-bash']).toBeUndefined();
  });

  it('takes every icon from build/ and the entitlements for the hardened runtime', () => {
    expect(config.directories.buildResources).toBe('build');
    expect(config.mac.icon).toBe('build/icon.icns');
    expect(config.win.icon).toBe('build/icon.ico');
    expect(config.linux.icon).toBe('build/icons');
    expect(statSync(join(root, config.linux.icon)).isDirectory()).toBe(true);
    for (const file of [config.mac.icon, config.win.icon, config.mac.entitlements, 'build/icon.png'])
      expect(existsSync(join(root, file)), file).toBe(true);
    expect(config.files).toContain('build/icon.png');
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.mac.notarize).toBe(true);
  });

  it('publishes to GitHub releases as a draft, where electron-updater looks', () => {
    expect(config.publish).toEqual({ provider: 'github', releaseType: 'draft' });
    expect(pkg.dependencies['electron-updater']).toBeDefined();
  });

  it('pins the versions this machine can install', () => {
    expect(Number(pkg.devDependencies.electron!.split('.')[0])).toBeGreaterThanOrEqual(45);
    expect(Number(pkg.devDependencies['electron-builder']!.split('.')[0])).toBe(26);
    expect(pkg.dependencies['better-sqlite3']).toMatch(/^12\./);
    expect(pkg.devDependencies.vite).toBe('8.3.8');
  });
});
