import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOWED_MISSING,
  builtFiles,
  bundleImports,
  ELECTRON,
  layOutApp,
  loadInApp,
  mayBeMissing,
  newestChange,
  packageOf,
  productionPackages,
  type BundleImport,
} from './production-closure.js';

// The installer ships out/ with the production dependencies only (electron-builder leaves the dev
// dependencies out). A module the main bundle loads that lives only in devDependencies works in
// development and in every other test, and breaks the installed app at start; this test is the one
// place that sees it. It reads what `npm test` built, and builds again when that is missing or
// older than any source of the main bundle (vitest run alone after an edit).
const root = resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** A child Node loads the whole closure; generous, for a machine that is busy with other work. */
const LOAD_TIMEOUT_MS = 90_000;

let dir = '';
let imports: BundleImport[] = [];

/** The sources of the built main process and preload, and the configuration that builds them. */
const BUNDLE_SOURCES = ['electron', 'shared'];
const BUILD_CONFIG = 'electron.vite.config.ts';

/** Whether out/ must be built again: missing, or older than a source (an mtime walk, a few ms). */
function bundleIsStale(): boolean {
  const bundle = join(root, 'out', 'main', 'main.js');
  if (!existsSync(bundle)) return true;
  const sources = Math.max(newestChange(root, BUNDLE_SOURCES), statSync(join(root, BUILD_CONFIG)).mtimeMs);
  return sources > statSync(bundle).mtimeMs;
}

beforeAll(() => {
  if (bundleIsStale()) {
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
      'await import(createRequire(import.meta.url).resolve("optional-one"))',
      'const r = createRequire(import.meta.url); r.x = require.resolve("pkg-three/file.wasm")',
      'require("node:fs"); require("./local.js")',
      `import { app } from "${ELECTRON}"`,
    ].join(';\n');
    expect(bundleImports(code)).toEqual([
      { specifier: 'pkg-one', kind: 'import', names: ['a', 'b'] },
      { specifier: '@scope/two/sub', kind: 'import', names: ['e'] },
      { specifier: ELECTRON, kind: 'import', names: ['app'] },
      { specifier: 'side-effect', kind: 'import', names: [] },
      { specifier: 'koffi', kind: 'require', names: [] },
      { specifier: 'optional-one', kind: 'resolve', names: [] },
      { specifier: 'pkg-three/file.wasm', kind: 'resolve', names: [] },
    ]);
    expect(packageOf('@scope/two/sub')).toBe('@scope/two');
  });

  it('sees a source edited after the build, however deep', () => {
    const tree = mkdtempSync(join(tmpdir(), 'drover-mtimes-'));
    try {
      mkdirSync(join(tree, 'electron', 'a', 'b'), { recursive: true });
      mkdirSync(join(tree, 'shared'));
      writeFileSync(join(tree, 'electron', 'main.ts'), '');
      writeFileSync(join(tree, 'electron', 'a', 'b', 'deep.ts'), '');
      writeFileSync(join(tree, 'shared', 'contract.ts'), '');
      utimesSync(join(tree, 'electron', 'main.ts'), 1000, 1000);
      utimesSync(join(tree, 'shared', 'contract.ts'), 2000, 2000);
      utimesSync(join(tree, 'electron', 'a', 'b', 'deep.ts'), 3000, 3000);
      expect(newestChange(tree, ['electron', 'shared'])).toBe(3_000_000);
      expect(newestChange(tree, ['shared'])).toBe(2_000_000);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('loads modules that live in the production dependencies', () => {
    expect(imports.length).toBeGreaterThan(5);
    // The native modules are among them: each must load from the production layout.
    const names = new Set(imports.map((found) => packageOf(found.specifier)));
    for (const native of ['better-sqlite3', '@lydell/node-pty', 'koffi']) expect(names).toContain(native);
  });

  it('names every module it loads in dependencies, never only in devDependencies', () => {
    const missing = imports
      .filter((found) => !mayBeMissing(found))
      .map((found) => packageOf(found.specifier))
      .filter((name) => name !== ELECTRON && !pkg.dependencies[name])
      .map((name) => `${name}${pkg.devDependencies[name] ? ' (only in devDependencies)' : ''}`);
    expect(missing).toEqual([]);
  });

  it(
    'loads every one of them with the dev dependencies absent, Electron stubbed',
    () => {
      const allowed = new Set(imports.filter(mayBeMissing).map((found) => found.specifier));
      expect(loadInApp(dir, imports).filter((failure) => !allowed.has(failure.specifier))).toEqual([]);
    },
    LOAD_TIMEOUT_MS,
  );

  it('allows a module to be missing only where the bundle still resolves it behind its guard', () => {
    const resolved = imports.filter((found) => found.kind === 'resolve').map((found) => found.specifier);
    // A stale entry would let a later, unguarded use of the same module through unseen.
    for (const specifier of ALLOWED_MISSING.keys()) expect(resolved).toContain(specifier);
    // shell-parser.ts finds the grammar shipped beside the bundle first, so the fallback never runs installed.
    expect(existsSync(join(dir, 'out', 'main', 'tree-sitter-bash.wasm'))).toBe(true);
  });

  it(
    'fails for a module that only a dev dependency provides (the check itself works)',
    () => {
      const failures = loadInApp(dir, [
        { specifier: 'tree-sitter-bash', kind: 'require', names: [] },
        { specifier: 'vitest', kind: 'import', names: [] },
        { specifier: 'zod', kind: 'import', names: ['noSuchExport'] },
        { specifier: 'tree-sitter-bash/tree-sitter-bash.wasm', kind: 'resolve', names: [] },
        // A production package's file resolves.
        { specifier: 'unhomoglyph/data.json', kind: 'resolve', names: [] },
      ]);
      expect(failures.map((failure) => failure.specifier)).toEqual([
        'tree-sitter-bash',
        'vitest',
        'zod',
        'tree-sitter-bash/tree-sitter-bash.wasm',
      ]);
      expect(failures[2]!.error).toContain('noSuchExport');
    },
    LOAD_TIMEOUT_MS,
  );
});
