// The page's first screen builds no contract schemas (issue 18: opening a big session). Building
// them cost the page tens of milliseconds before it could show anything, so the renderer takes its
// helpers and limits from zod-free modules (shared/domain/), and the settings page, which
// validates with the schemas, is a chunk of its own. The page loads no zod at all to open a session:
// it reads the host's frames without it (shared/ipc/ws-frame-reader.ts). This walks the modules the
// page evaluates before it mounts: static imports, not `import type`, not import(), from
// renderer/src/main.ts and from the app, which it loads at once with import().
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** The specifiers of a module's imports and re-exports that run when it is evaluated. */
function runtimeImports(file: string): string[] {
  let source = readFileSync(join(root, file), 'utf8');
  if (file.endsWith('.svelte'))
    source = [...source.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]).join('\n');
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  for (const statement of parsed.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      // Only `import type` is erased: with verbatimModuleSyntax, `import { type A } from` still loads the module.
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** A project file for a specifier, or null for a package. */
function resolveModule(from: string, specifier: string): string | null {
  let path: string;
  if (specifier.startsWith('@shared/')) path = join('shared', specifier.slice('@shared/'.length));
  else if (specifier.startsWith('.')) path = relative(root, resolve(root, dirname(from), specifier));
  else return null;
  const candidates = [path, path.replace(/\.js$/, '.ts'), `${path}.ts`];
  const found = candidates.find(
    (candidate) => /\.(ts|svelte|css)$/.test(candidate) && existsSync(join(root, candidate)),
  );
  if (!found) throw new Error(`${from}: cannot resolve "${specifier}"`);
  return found.split('\\').join('/');
}

/** Every project module the first screen evaluates, with the packages each imports. */
function firstScreen(roots = ['renderer/src/main.ts', 'renderer/src/app-main.ts']): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || file.endsWith('.css')) continue;
    const packages: string[] = [];
    seen.set(file, packages);
    for (const specifier of runtimeImports(file)) {
      const target = resolveModule(file, specifier);
      if (target === null) packages.push(specifier);
      else queue.push(target);
    }
  }
  return seen;
}

describe("the page's first screen", () => {
  const modules = firstScreen();

  it('is walked whole: the app, the session view, the tasks panel and the transcript are in it', () => {
    for (const file of [
      'renderer/src/App.svelte',
      'renderer/src/components/session/SessionView.svelte',
      'renderer/src/components/tasks/TasksPanel.svelte',
      'renderer/src/components/session/Transcript.svelte',
      'shared/ipc/ws-client.ts',
      'shared/ipc/ws-frame-reader.ts',
    ])
      expect(modules.has(file), file).toBe(true);
  });

  it('loads no zod and builds no schemas, not even the frames’ or the errors’, and the settings page is not in it', () => {
    const zodUsers = [...modules]
      .filter(([, packages]) => packages.some((name) => name.startsWith('zod')))
      .map(([file]) => file);
    expect(zodUsers).toEqual([]);
    expect([...modules.keys()].filter((file) => file.startsWith('shared/schemas/'))).toEqual([]);
    expect(modules.has('shared/ipc/ws-protocol.ts')).toBe(false);
    expect(modules.has('shared/ipc/errors.ts')).toBe(false);
    expect([...modules].filter(([, packages]) => packages.includes('safe-regex2'))).toEqual([]);
    expect(modules.has('renderer/src/components/settings/SettingsView.svelte')).toBe(false);
  });

  it("leaves the panel's other views out: the task view, the Work and the Schedules tabs come on demand", () => {
    for (const file of [
      'renderer/src/components/tasks/panel-views.ts',
      'renderer/src/components/tasks/TaskView.svelte',
      'renderer/src/components/tasks/TerminalTaskView.svelte',
      'renderer/src/components/tasks/AgentTaskView.svelte',
      'renderer/src/components/work/WorkBoard.svelte',
      'renderer/src/components/schedules/SchedulesBoard.svelte',
    ])
      expect(modules.has(file), file).toBe(false);
    // The walk would see them: it follows a static import of the views' module.
    expect(runtimeImports('renderer/src/components/tasks/panel-views.ts')).toContain('./TaskView.svelte');
  });

  it('opens the connection before Svelte is evaluated: the first script imports neither it nor zod', () => {
    const first = firstScreen(['renderer/src/main.ts']);
    expect(first.has('renderer/src/boot.ts')).toBe(true);
    expect(first.has('shared/ipc/ws-client.ts')).toBe(true);
    const heavy = [...first].filter(
      ([file, packages]) => /\.svelte(\.ts)?$/.test(file) || packages.some((name) => /^(zod|svelte)(\/|$)/.test(name)),
    );
    expect(heavy.map(([file]) => file)).toEqual([]);
  });

  it('loads no Markdown parser: replies come rendered from the host, and the page’s own renderer is loaded on demand', () => {
    expect(modules.has('renderer/src/components/session/Markdown.svelte')).toBe(true);
    expect([...modules].filter(([, packages]) => packages.includes('marked')).map(([file]) => file)).toEqual([]);
    expect(modules.has('shared/domain/markdown.ts')).toBe(false);
    expect(modules.has('renderer/src/lib/markdown-source.ts')).toBe(false);
    // The walk would see it: the renderer imports marked through the shared module.
    expect(runtimeImports('shared/domain/markdown.ts')).toContain('marked');
  });

  it('would notice a schema module coming back (the walk follows @shared imports into shared/schemas)', () => {
    expect(runtimeImports('shared/schemas/task-page.ts')).toContain('zod');
    // And errors.ts, were the page to take DroverError from it again rather than from drover-error.ts.
    expect(runtimeImports('shared/ipc/errors.ts')).toContain('zod/mini');
    expect(resolveModule('renderer/src/lib/tasks.ts', '@shared/schemas/task.js')).toBe('shared/schemas/task.ts');
    expect(runtimeImports('renderer/src/lib/state/open-prefetch.ts')).not.toContain('@shared/contract.js');
  });
});
