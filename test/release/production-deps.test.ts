import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtFiles,
  bundleImports,
  ELECTRON,
  layOutApp,
  loadInApp,
  packageOf,
  productionPackages,
  type BundleImport,
} from './production-closure.js';

// The installer ships out/ with the production dependencies only (electron-builder leaves the dev
// dependencies out). A module the main bundle loads that lives only in devDependencies works in
// development and in every other test, and breaks the installed app at start; this test is the one
// place that sees it. It reads what `npm test` built, and builds only when nothing is there.
const root = resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** A child Node loads the whole closure; generous, for a machine that is busy with other work. */
const LOAD_TIMEOUT_MS = 90_000;

let dir = '';
let imports: BundleImport[] = [];

beforeAll(() => {
  if (!existsSync(join(root, 'out', 'main', 'main.js'))) {
    const built = spawnSync(join(root, 'node_modules', '.bin', 'electron-vite'), ['build'], {
      cwd: root,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`electron-vite build failed: ${built.stderr}`);
  }
  const byKey = new Map<string, BundleImport>();
  for (const file of builtFiles(root))
    for (const found of bundleImports(readFileSync(join(root, file), 'utf8'))) {
      const key = `${found.kind}:${found.specifier}`;
      const known = byKey.get(key);
      byKey.set(key, known ? { ...known, names: [...new Set([...known.names, ...found.names])] } : found);
    }
  imports = [...byKey.values()];
  dir = mkdtempSync(join(tmpdir(), 'drover-installed-'));
  const electronNames = imports.filter((found) => found.specifier === ELECTRON).flatMap((found) => found.names);
  layOutApp(root, dir, productionPackages(root), electronNames);
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the main bundle in an installed app', () => {
  it('finds the modules a bundle loads, and how', () => {
    const code = [
      'import { a, b as c } from "pkg-one"',
      'import D, { e } from "@scope/two/sub"',
      'import "side-effect"',
      'const k = createRequire(import.meta.url)("koffi")',
      'require("node:fs"); require("./local.js")',
      `import { app } from "${ELECTRON}"`,
    ].join(';\n');
    expect(bundleImports(code)).toEqual([
      { specifier: 'pkg-one', kind: 'import', names: ['a', 'b'] },
      { specifier: '@scope/two/sub', kind: 'import', names: ['e'] },
      { specifier: ELECTRON, kind: 'import', names: ['app'] },
      { specifier: 'side-effect', kind: 'import', names: [] },
      { specifier: 'koffi', kind: 'require', names: [] },
    ]);
    expect(packageOf('@scope/two/sub')).toBe('@scope/two');
  });

  it('loads modules that live in the production dependencies', () => {
    expect(imports.length).toBeGreaterThan(5);
    // The native modules are among them: each must load from the production layout.
    const names = new Set(imports.map((found) => packageOf(found.specifier)));
    for (const native of ['better-sqlite3', '@lydell/node-pty', 'koffi']) expect(names).toContain(native);
  });

  it('names every module it loads in dependencies, never only in devDependencies', () => {
    const missing = imports
      .map((found) => packageOf(found.specifier))
      .filter((name) => name !== ELECTRON && !pkg.dependencies[name])
      .map((name) => `${name}${pkg.devDependencies[name] ? ' (only in devDependencies)' : ''}`);
    expect(missing).toEqual([]);
  });

  it(
    'loads every one of them with the dev dependencies absent, Electron stubbed',
    () => {
      expect(loadInApp(dir, imports)).toEqual([]);
    },
    LOAD_TIMEOUT_MS,
  );

  it(
    'fails for a module that only a dev dependency provides (the check itself works)',
    () => {
      const failures = loadInApp(dir, [
        { specifier: 'tree-sitter-bash', kind: 'require', names: [] },
        { specifier: 'vitest', kind: 'import', names: [] },
        { specifier: 'zod', kind: 'import', names: ['noSuchExport'] },
      ]);
      expect(failures.map((failure) => failure.specifier)).toEqual(['tree-sitter-bash', 'vitest', 'zod']);
      expect(failures[2]!.error).toContain('noSuchExport');
    },
    LOAD_TIMEOUT_MS,
  );
});
