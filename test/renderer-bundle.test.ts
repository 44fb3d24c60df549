import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { FAVICON_FILE, FAVICON_SOURCE, FIRST_SCREEN_LIST } from '../electron.vite.config.js';
import { CONTENT_SECURITY_POLICY } from '../electron/host/static-files.js';
import { PAGE_SCRIPT } from '../shared/domain/page-script.js';

/** The built renderer (`npm test` builds before it runs the tests). */
const ASSETS = join('out', 'renderer', 'assets');

/** What must never reach the page: Node's built-ins, Electron, and the native modules of the main process. */
const FORBIDDEN = new Set([...builtinModules, 'electron', 'better-sqlite3', 'node-pty', 'koffi', 'tree-sitter-bash']);

/** Every module a bundle imports or requires by name (`from "x"`, `import("x")`, `require("x")`). */
function importedNames(code: string): string[] {
  const names: string[] = [];
  for (const match of code.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s*)["']([^"'./][^"']*)["']/g,
  ))
    names.push(match[1]!);
  return names;
}

function forbidden(name: string): boolean {
  const bare = name.startsWith('node:') ? name.slice(5) : name;
  return name.startsWith('node:') || FORBIDDEN.has(bare) || FORBIDDEN.has(bare.split('/')[0]!);
}

describe('the renderer bundle', () => {
  it('finds the imports a bundle names, and which are forbidden', () => {
    expect(
      // Built from pieces: the layering test reads this file's source for imports of Electron.
      importedNames(
        ['import a from "node:fs"', 'const b=require("child_process")', `import("${'elec'}tron")`, 'x.from("ok")'].join(
          ';',
        ),
      ),
    ).toEqual(['node:fs', 'child_process', 'electron']);
    expect(['node:fs', 'child_process', 'electron', 'better-sqlite3/lib', 'svelte'].map(forbidden)).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('imports no Node built-in, no Electron and no native module, and ships no native binary', () => {
    expect(existsSync(ASSETS), `${ASSETS} is missing: run npm run build first`).toBe(true);
    const files = readdirSync(ASSETS);
    expect(files.some((file) => file.endsWith('.js'))).toBe(true);
    expect(files.filter((file) => file.endsWith('.node'))).toEqual([]);
    const reached = files
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) =>
        importedNames(readFileSync(join(ASSETS, file), 'utf8'))
          .filter(forbidden)
          .map((name) => `${file}: ${name}`),
      );
    expect(reached).toEqual([]);
  });

  /** The entry's script tag and the app's modulepreload links: everything the page runs as it opens. */
  function firstLoadScripts(): string[] {
    const page = readFileSync(join('out', 'renderer', 'index.html'), 'utf8');
    return [
      ...page.matchAll(
        /<(?:script type="module"|link rel="modulepreload")[^>]* (?:src|href)="\.\/assets\/([^"]+\.js)"/g,
      ),
    ].map((match) => match[1]!);
  }

  it("hints V8 to compile whole only the chunks the first screen runs: Svelte's runtime and the app's first-screen modules", () => {
    // On the whole app's chunk the hint made a first open slower (electron.vite.config.ts): V8
    // compiled all its functions, the many the first screen never calls as well.
    const scripts = readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    expect(firstLoadScripts().length).toBeGreaterThanOrEqual(3);
    const hinted = scripts
      .filter((file) => readFileSync(join(ASSETS, file), 'utf8').includes('allFunctionsCalledOnLoad'))
      .sort();
    expect(hinted).toHaveLength(2);
    expect(hinted[0]).toMatch(/^first-screen-[\w-]+\.js$/);
    expect(hinted[1]).toMatch(/^svelte-[\w-]+\.js$/);
    for (const file of hinted) {
      expect(firstLoadScripts()).toContain(file);
      // V8 reads it on the script's first line only.
      expect(readFileSync(join(ASSETS, file), 'utf8').startsWith('//# allFunctionsCalledOnLoad\n'), file).toBe(true);
    }
    // The runtime is the runtime (its error page's links), and the app's first screen is the
    // first-screen chunk: its session view's test ids are there, the settings page's are not.
    expect(readFileSync(join(ASSETS, hinted[1]!), 'utf8')).toContain('svelte.dev/e/');
    const firstScreen = readFileSync(join(ASSETS, hinted[0]!), 'utf8');
    expect(firstScreen).toContain('data-testid="transcript"');
    expect(firstScreen).not.toContain('data-testid="settings-status"');
    // What the first screen does not show (the composer's command menu) stays in the app's
    // chunks, compiled when first called.
    const app = scripts.filter((file) => file.startsWith('app-main-'));
    expect(app.some((file) => readFileSync(join(ASSETS, file), 'utf8').includes('data-testid="slash-menu"'))).toBe(
      true,
    );
  });

  it("leaves the panel's other views out of the first load: a chunk of their own, fetched after the first screen", () => {
    const scripts = readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    const holding = (testid: string) =>
      scripts.filter((file) => readFileSync(join(ASSETS, file), 'utf8').includes(`data-testid="${testid}"`));
    for (const testid of ['schedules-board', 'work-board', 'task-view']) {
      expect(holding(testid), testid).toHaveLength(1);
      expect(holding(testid)[0], testid).toMatch(/^panel-views-[\w-]+\.js$/);
    }
    expect(firstLoadScripts().filter((file) => file.startsWith('panel-views-'))).toEqual([]);
    // Nor does what they share with the app make a small chunk of its own that the first load fetches.
    for (const file of firstLoadScripts()) expect(file).toMatch(/^(index|svelte|first-screen|app-main)-[\w-]+\.js$/);
  });

  it("evaluates the first screen's modules before the app's others: the app's entry imports those first", () => {
    const scripts = readdirSync(ASSETS).filter((file) => file.startsWith('app-main-') && file.endsWith('.js'));
    const entry = scripts.filter((file) => /\bas mountApp\b/.test(readFileSync(join(ASSETS, file), 'utf8')));
    expect(entry).toHaveLength(1);
    const imports = [
      ...readFileSync(join(ASSETS, entry[0]!), 'utf8').matchAll(/\bfrom\s*["']\.\/([^"']+\.js)["']/g),
    ].map((match) => match[1]!);
    const rest = imports.findIndex((file) => file.startsWith('app-main-'));
    const firstScreen = imports.findIndex((file) => file.startsWith('first-screen-'));
    // Imported first, the rest of the app's chunk reaches the first-screen chunk through its own
    // imports, and that chunk (which imports it back) is evaluated before it.
    expect(rest).toBeGreaterThanOrEqual(0);
    expect(firstScreen).toBeGreaterThan(rest);
  });

  it("keeps only the first screen's components in the page's stylesheets; the others' rules come with their scripts", () => {
    const page = readFileSync(join('out', 'renderer', 'index.html'), 'utf8');
    const sheets = [...page.matchAll(/<link rel="stylesheet"[^>]* href="\.\/assets\/([^"]+\.css)"/g)].map((match) =>
      readFileSync(join(ASSETS, match[1]!), 'utf8'),
    );
    expect(sheets.length).toBeGreaterThanOrEqual(2);
    /** The scoped class of the element carrying `testId`, from the template in `code`. */
    const scope = (code: string, testId: string) =>
      new RegExp(`class="[^"]*(svelte-[a-z0-9]+)"[^>]* data-testid="${testId}"`).exec(code)?.[1];
    const scripts = readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    const code = (prefix: string) =>
      readFileSync(
        join(
          ASSETS,
          scripts.find((file) => file.startsWith(prefix))!,
        ),
        'utf8',
      );
    // The transcript is on the first screen: its rules are in a stylesheet.
    const transcript = scope(code('first-screen-'), 'transcript');
    expect(transcript).toBeTruthy();
    expect(sheets.some((sheet) => sheet.includes(`.${transcript}`))).toBe(true);
    // The schedules board (another tab) is not: its rules are in its chunk, injected when it is shown.
    const board = scope(code('panel-views-'), 'schedules-board');
    expect(board).toBeTruthy();
    expect(sheets.some((sheet) => sheet.includes(board!))).toBe(false);
    expect(code('panel-views-')).toContain(`.board.${board}`);
  });

  it('names, in the first-screen list, only modules that exist, each once and in order', () => {
    const list = JSON.parse(readFileSync(FIRST_SCREEN_LIST, 'utf8')) as string[];
    expect(list.length).toBeGreaterThan(20);
    expect(list.filter((path) => !existsSync(path))).toEqual([]);
    expect([...new Set(list)].sort()).toEqual(list);
    expect(list).toContain('renderer/src/components/session/Transcript.svelte');
    expect(list).not.toContain('renderer/src/app-main.ts');
  });

  it('has one inline script, the early connection, first in the head and allowed by its hash in the page and the host alike', () => {
    const html = readFileSync(join('out', 'renderer', 'index.html'), 'utf8');
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    expect(inline).toEqual([PAGE_SCRIPT]);
    const allowed = `script-src 'self' 'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}';`;
    expect(/http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1]).toContain(allowed);
    expect(CONTENT_SECURITY_POLICY).toContain(allowed);
    // Before the page asks for any file: it runs as the head is parsed.
    expect(html.indexOf('<script>')).toBeLessThan(html.indexOf('<link'));
    expect(html.indexOf('<script>')).toBeLessThan(html.indexOf('<script type="module"'));
  });

  it('gives the page a PNG icon made from the one icon source, never an SVG one (drawn on the main thread)', () => {
    const html = readFileSync(join('out', 'renderer', 'index.html'), 'utf8');
    const icons = [...html.matchAll(/<link[^>]*rel="icon"[^>]*>/g)].map((match) => match[0]);
    expect(icons).toEqual([`<link rel="icon" type="image/png" href="./${FAVICON_FILE}" />`]);
    expect(readFileSync(join('out', 'renderer', FAVICON_FILE)).equals(readFileSync(FAVICON_SOURCE))).toBe(true);
    expect(readdirSync(join('out', 'renderer')).filter((name) => name.endsWith('.svg'))).toEqual([]);
  });

  it('loads no zod on the first load (the page reads frames without it); zod comes only with the settings page', () => {
    // Each schema kind names itself when it is built: classic's string schema "ZodString", mini's
    // "ZodMiniString"; and every zod schema keeps its internals under `_zod`.
    const kinds = (file: string) => {
      const code = readFileSync(join(ASSETS, file), 'utf8');
      return {
        classic: /[`"']ZodString[`"']/.test(code),
        mini: /[`"']ZodMiniString[`"']/.test(code),
        core: /\._zod\b/.test(code),
      };
    };
    expect(firstLoadScripts().map(kinds)).toEqual(
      firstLoadScripts().map(() => ({ classic: false, mini: false, core: false })),
    );
    const settings = readdirSync(ASSETS).filter((file) => file.startsWith('SettingsView-') && file.endsWith('.js'));
    expect(settings.map(kinds).some((found) => found.classic)).toBe(true);
  });
});
