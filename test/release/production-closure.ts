// Helpers for test/release/production-deps.test.ts: what the built main bundle imports, and a
// folder laid out as an installed app would be (production dependencies only, Electron stubbed).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * How the bundle loads a module: an ES import (static or dynamic), CommonJS require
 * (createRequire), or only resolves its path (`createRequire(…).resolve`, then reads or imports the file).
 */
export type LoadKind = 'import' | 'require' | 'resolve';

export interface BundleImport {
  specifier: string;
  kind: LoadKind;
  /** Names taken from it by `import { a, b }`: each must exist, or the app fails at start. */
  names: string[];
}

const BUILTINS = new Set(builtinModules);
// Assembled from pieces so that test/layering.test.ts, which reads this file's text, sees no import of it.
export const ELECTRON = ['elec', 'tron'].join('');

export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(specifier.split('/')[0]!);
}

/** The package a bare specifier belongs to: `@scope/name` or `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Every bare module a built file loads, with how it is loaded and the names it takes. */
export function bundleImports(code: string): BundleImport[] {
  const found = new Map<string, BundleImport>();
  const add = (specifier: string, kind: LoadKind, names: string[] = []) => {
    if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return;
    const key = `${kind}:${specifier}`;
    const entry = found.get(key) ?? { specifier, kind, names: [] };
    entry.names = [...new Set([...entry.names, ...names])].sort();
    found.set(key, entry);
  };
  for (const match of code.matchAll(
    /\bimport\s*(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\}\s*)?(?:\*\s*as\s+[\w$]+\s*)?from\s*["']([^"']+)["']/g,
  )) {
    const names = (match[2] ?? '')
      .split(',')
      .map((part) =>
        part
          .trim()
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((name) => name && name !== 'default');
    add(match[3]!, 'import', names);
  }
  for (const match of code.matchAll(/\bimport\s*["']([^"']+)["']/g)) add(match[1]!, 'import');
  for (const match of code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) add(match[1]!, 'import');
  // `require("x")`, and `createRequire(import.meta.url)("x")` as the bundle writes it for koffi.
  for (const match of code.matchAll(/\brequire\s*\(\s*["']([^"']+)["']\s*\)/g)) add(match[1]!, 'require');
  for (const match of code.matchAll(/\bcreateRequire\s*\([^)]*\)\s*\(\s*["']([^"']+)["']\s*\)/g))
    add(match[1]!, 'require');
  // `createRequire(import.meta.url).resolve("x")`, and `require.resolve("x")` from a `require` kept by name.
  for (const match of code.matchAll(
    /(?:\bcreateRequire\s*\([^)]*\)|\brequire)\s*\.\s*resolve\s*\(\s*["']([^"']+)["']\s*\)/g,
  ))
    add(match[1]!, 'resolve');
  return [...found.values()];
}

/**
 * What the bundle only resolves, behind a guard, and the installed app may lack: each names the code
 * that guards it. Anything else the bundle loads or resolves must be there.
 */
export const ALLOWED_MISSING: ReadonlyMap<string, string> = new Map([
  [
    'pid-port',
    'electron/process/port-owner.ts loadPidPort(): optional, not a dependency; when it does not resolve, ' +
      'finding who listens on a port says it is unsupported on macOS and Windows',
  ],
  [
    'tree-sitter-bash/tree-sitter-bash.wasm',
    'electron/permissions/shell-parser.ts grammarPath(): the grammar shipped beside the bundle ' +
      '(out/main/tree-sitter-bash.wasm) is used first; resolving the dev dependency is the fallback for a checkout',
  ],
]);

/** Whether a module the bundle loads may be missing from the installed app (only ever for a resolve). */
export function mayBeMissing(found: BundleImport): boolean {
  return found.kind === 'resolve' && ALLOWED_MISSING.has(found.specifier);
}

/**
 * The newest modification time, in ms, of the files under the given folders of `root`: the main
 * bundle is older than its sources when this is later than its own.
 */
export function newestChange(root: string, folders: string[]): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return newest;
}

/** The built files of the main process and the preload, relative to the project root. */
export function builtFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (/\.(c|m)?js$/.test(name)) out.push(path);
    }
  };
  walk(join('out', 'main'));
  walk(join('out', 'preload'));
  return out;
}

interface LockPackage {
  dev?: boolean;
}

/**
 * The installed folders of the production dependency closure, as `npm ci --omit=dev` would keep:
 * every lockfile entry not marked dev that is present here (optional packages for other platforms are not).
 */
export function productionPackages(root: string): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockPackage>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev)
    .map(([path]) => path)
    .filter((path) => {
      try {
        return statSync(join(root, path)).isDirectory();
      } catch {
        return false;
      }
    });
}

/** Hard-links a package's files (copies across devices), leaving out its nested node_modules: those are entries of their own. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) cpSync(source, target, { verbatimSymlinks: true });
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}

/** A stand-in for Electron's module: every named export the bundle takes, each an inert object. */
function electronStub(names: string[]): string {
  const lines = ['// Test stub: Electron cannot run under Node.', "'use strict';"];
  for (const name of names) lines.push(`exports.${name} = new Proxy(function () {}, { get: () => undefined });`);
  return `${lines.join('\n')}\n`;
}

/** Lays out an installed app in `dir`: package.json, out/, the production packages and the Electron stub. */
export function layOutApp(root: string, dir: string, packages: string[], electronNames: string[]): void {
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'out'), join(dir, 'out'), { recursive: true });
  for (const path of packages) linkTree(join(root, path), join(dir, path));
  const stub = join(dir, 'node_modules', ELECTRON);
  mkdirSync(stub, { recursive: true });
  writeFileSync(join(stub, 'package.json'), JSON.stringify({ name: ELECTRON, main: 'index.js' }));
  writeFileSync(join(stub, 'index.js'), electronStub(electronNames));
}

export interface LoadFailure {
  specifier: string;
  error: string;
}

/**
 * Loads each import from `out/main` inside the laid-out app, in a child Node with nothing from this
 * checkout reachable, the way the bundle loads it; checks the names it takes; and opens an in-memory
 * database, because better-sqlite3 loads its native binding (and the packages that find it) only then.
 */
export function loadInApp(dir: string, imports: BundleImport[]): LoadFailure[] {
  const probe = join(dir, 'out', 'main', 'load-probe.mjs');
  mkdirSync(dirname(probe), { recursive: true });
  writeFileSync(
    probe,
    `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const imports = ${JSON.stringify(imports)};
const failures = [];
for (const { specifier, kind, names } of imports) {
  try {
    const loaded =
      kind === 'resolve' ? { path: require.resolve(specifier) } : kind === 'require' ? require(specifier) : await import(specifier);
    const missing = names.filter((name) => !(name in loaded));
    if (missing.length) throw new Error('no export named ' + missing.join(', '));
    if (specifier === 'better-sqlite3') {
      const Database = loaded.default ?? loaded;
      new Database(':memory:').close();
    }
  } catch (error) {
    failures.push({ specifier, error: String(error && error.message || error).split('\\n')[0] });
  }
}
process.stdout.write(JSON.stringify(failures));
`,
  );
  const env = { ...process.env };
  delete env.NODE_PATH;
  delete env.NODE_OPTIONS;
  const result = spawnSync(process.execPath, [probe], { cwd: dir, env, encoding: 'utf8', timeout: 80_000 });
  if (result.status !== 0) throw new Error(`the load probe failed: ${result.stderr || result.error?.message}`);
  return JSON.parse(result.stdout) as LoadFailure[];
}
