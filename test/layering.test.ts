import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
/**
 * Modules a file in shared/ may import: the schema library, safe-regex2 (plain JavaScript that
 * only reads a pattern, for the readiness check's schema) and marked (plain JavaScript, strings in
 * and out: the host and the page render replies' Markdown with it), nothing host-specific.
 */
const SHARED_ALLOWED_PACKAGES = new Set(['zod', 'zod/mini', 'safe-regex2', 'marked']);
/** The only files outside electron/app/ that may import 'electron': the two Electron entries. */
const ELECTRON_ENTRIES = new Set(['electron/main.ts', 'electron/preload.ts']);

const DOM_GLOBALS = new Set(['window', 'document', 'localStorage', 'sessionStorage', 'navigator']);

/** Whether a file's code (not its comments or strings) reads a member of the page's globals (`navigator.x`). */
function usesDomGlobals(file: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): boolean =>
    (ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      DOM_GLOBALS.has(node.expression.text)) ||
    ts.forEachChild(node, visit) === true;
  return visit(source);
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|svelte|mjs|js)$/.test(name)) out.push(path.split(sep).join('/'));
  }
  return out;
}

/** Every module specifier a file names: static imports, re-exports, dynamic imports and require calls. */
export function importsOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bimport\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bexport\s+(?:type\s+)?[^'";]*?\s+from\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

function resolvesInto(file: string, specifier: string, folder: string): boolean {
  if (specifier.startsWith('@shared/')) return folder === 'shared';
  if (!specifier.startsWith('.')) return false;
  const target = relative(root, resolve(root, file, '..', specifier))
    .split(sep)
    .join('/');
  return target === folder || target.startsWith(`${folder}/`);
}

function violations(files: string[], rule: (file: string, specifier: string) => string | null): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const specifier of importsOf(readFileSync(join(root, file), 'utf8'))) {
      const problem = rule(file, specifier);
      if (problem) out.push(`${file} imports "${specifier}": ${problem}`);
    }
  }
  return out;
}

describe('layering', () => {
  it('finds imports of every form (the checker itself works)', () => {
    expect(
      importsOf(
        `import a from 'x'; import type { B } from "y"; export * from './z.js'; await import('w'); require('v'); import 'side';`,
      ),
    ).toEqual(expect.arrayContaining(['x', 'y', './z.js', 'w', 'v', 'side']));
  });

  it('renderer/ imports only shared/ and its own files, plus browser packages (never Node or Electron)', () => {
    const files = sourceFiles('renderer/src');
    expect(files.length).toBeGreaterThan(3);
    const found = violations(files, (file, specifier) => {
      if (resolvesInto(file, specifier, 'shared')) return null;
      if (specifier.startsWith('.'))
        return resolvesInto(file, specifier, 'renderer') ? null : 'leaves renderer/ for somewhere other than shared/';
      if (NODE_BUILTINS.has(specifier)) return 'Node built-ins do not exist in the page';
      if (specifier === 'electron' || specifier.startsWith('electron/')) return 'the page never touches Electron';
      if (specifier.startsWith('@shared') || specifier.startsWith('/')) return 'unexpected path';
      return null;
    });
    expect(found).toEqual([]);
  });

  it('shared/ imports no Node, DOM or Electron, and nothing from the other folders', () => {
    const files = sourceFiles('shared');
    const found = violations(files, (file, specifier) => {
      if (specifier.startsWith('.')) return resolvesInto(file, specifier, 'shared') ? null : 'leaves shared/';
      if (NODE_BUILTINS.has(specifier)) return 'Node built-in';
      if (SHARED_ALLOWED_PACKAGES.has(specifier)) return null;
      return 'package not allowed in shared/';
    });
    expect(found).toEqual([]);
    const dom = files.filter((file) => usesDomGlobals(file));
    expect(dom).toEqual([]);
    // Code, not text: the page's inline script (shared/ipc/early-socket.ts) is a string the page runs.
    expect(usesDomGlobals('shared/ipc/early-socket.ts')).toBe(false);
    expect(readFileSync(join(root, 'shared/ipc/early-socket.ts'), 'utf8')).toContain('location.');
    // And code that does read one is found.
    expect(usesDomGlobals('renderer/src/boot.ts')).toBe(true);
  });

  it("only electron/app/ and the Electron entries import 'electron'", () => {
    // This file names 'electron' in its own examples and rules, so it is left out.
    const files = [
      ...sourceFiles('electron'),
      ...sourceFiles('shared'),
      ...sourceFiles('renderer/src'),
      ...sourceFiles('test'),
      ...sourceFiles('e2e'),
    ].filter((file) => file !== 'test/layering.test.ts');
    const found = violations(files, (file, specifier) => {
      if (specifier !== 'electron' && !specifier.startsWith('electron/')) return null;
      if (file.startsWith('electron/app/') || ELECTRON_ENTRIES.has(file)) return null;
      // The fake Electron and its suite are typed against Electron's .d.ts; vi.mock stands in at run time.
      if (file.startsWith('test/desktop/')) return null;
      return "only electron/app/ may import 'electron'";
    });
    expect(found).toEqual([]);
  });

  it('nothing imports renderer/', () => {
    const files = [...sourceFiles('electron'), ...sourceFiles('shared'), ...sourceFiles('test'), ...sourceFiles('e2e')];
    expect(
      violations(files, (file, specifier) =>
        resolvesInto(file, specifier, 'renderer') ? 'renderer/ is a leaf' : null,
      ),
    ).toEqual([]);
  });

  it('services under electron/ outside app/ never import electron/app/', () => {
    const files = sourceFiles('electron').filter(
      (file) => !file.startsWith('electron/app/') && !ELECTRON_ENTRIES.has(file),
    );
    expect(
      violations(files, (file, specifier) =>
        resolvesInto(file, specifier, 'electron/app') ? 'services stay free of Electron' : null,
      ),
    ).toEqual([]);
  });
});
