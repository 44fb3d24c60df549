import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';
import { normalizePath, type Plugin } from 'vite';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { staticIcons } from './scripts/static-icons.js';
import { PAGE_SCRIPT } from './shared/domain/page-script.js';
import { PAGE_SCRIPT_SOURCE } from './electron/host/static-files.js';

const root = import.meta.dirname;

/** Ships the bash grammar next to the main bundle: tree-sitter-bash stays a dev dependency, only its .wasm travels. */
function bashGrammar(): Plugin {
  return {
    name: 'drover-bash-grammar',
    generateBundle() {
      const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
      this.emitFile({ type: 'asset', fileName: 'tree-sitter-bash.wasm', source: readFileSync(wasm) });
    },
  };
}

type OutputBundle = Parameters<NonNullable<Extract<Plugin['generateBundle'], (...args: never[]) => unknown>>>[1];

/**
 * The scripts every load of the page runs: its entry, the app's chunk (a module id, see
 * preloadApp), what the entry itself imports on the fly at once, and every chunk any of these
 * imports, however deep.
 * Chunks only imported on demand (the terminal, settings, a highlighter's grammar) are not among them.
 */
function firstLoadChunks(bundle: OutputBundle, appEntry: string): string[] {
  const chunks = Object.values(bundle).filter((item) => item.type === 'chunk');
  // Module ids use forward slashes on every system (Windows included).
  const id = normalizePath(appEntry);
  const app = chunks.find((chunk) => chunk.facadeModuleId === id || chunk.moduleIds.includes(id));
  if (!app) throw new Error(`the app's chunk (${id}) is not in the bundle`);
  const files: string[] = [];
  const visit = (file: string): void => {
    const chunk = bundle[file];
    if (files.includes(file) || chunk?.type !== 'chunk') return;
    files.push(file);
    chunk.imports.forEach(visit);
  };
  for (const entry of chunks.filter((chunk) => chunk.isEntry)) {
    visit(entry.fileName);
    entry.dynamicImports.forEach(visit);
  }
  visit(app.fileName);
  return files;
}

/**
 * The page's code comes in two parts: main.ts with boot.ts, small (it opens the connection and
 * sends the first requests), and the app (app-main.ts), which main.ts imports. Links in the page
 * fetch and compile the app's chunks alongside, so the answers and the app are ready together
 * (issue 18: opening a big session).
 */
function preloadApp(entry: string): Plugin {
  return {
    name: 'drover-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const bundle = context.bundle;
        if (!bundle) return html;
        // The page's own entry is loaded by its script tag already.
        const scripts = firstLoadChunks(bundle, entry).filter((file) => {
          const chunk = bundle[file];
          return chunk?.type === 'chunk' && !chunk.isEntry;
        });
        const styles = scripts.flatMap((file) => {
          const chunk = bundle[file];
          return chunk?.type === 'chunk' ? [...(chunk.viteMetadata?.importedCss ?? [])] : [];
        });
        const links = [
          ...styles.map((file) => `<link rel="stylesheet" crossorigin href="./${file}">`),
          ...scripts.map((file) => `<link rel="modulepreload" crossorigin href="./${file}">`),
        ].filter((link) => !html.includes(link.slice(link.indexOf('href='))));
        return html.replace('</head>', `  ${links.join('\n    ')}\n  </head>`);
      },
    },
  };
}

/**
 * The page's one inline script (shared/domain/page-script.ts: it opens the host's connection with
 * the page's first reads, and on two cores or fewer reads the locale's data in while the page waits
 * for its scripts), put first in the head, right after the
 * policy, whose script-src gains the script's hash (PAGE_SCRIPT_SOURCE, the host's header names
 * the same). A plain script: it runs as the page is parsed, before any of the page's files arrive.
 */
function pageScript(): Plugin {
  return {
    name: 'drover-page-script',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        const policy = /(<meta\s+http-equiv="Content-Security-Policy"[\s\S]*?script-src 'self')(;[\s\S]*?\/>)/;
        if (!policy.test(html))
          throw new Error("index.html's policy must come first in its head with script-src 'self'");
        return html.replace(policy, `$1 ${PAGE_SCRIPT_SOURCE}$2\n    <script>${PAGE_SCRIPT}</script>`);
      },
    },
  };
}

/**
 * The page's icon: the 64 px rendering of build/icon.svg that scripts/icons.mjs makes (so the one
 * source stays the one source), emitted as favicon.png. Chromium draws an SVG icon as a document
 * of its own on the page's main thread, 11 ms of a cold load in a trace of opening a big session,
 * landing while the first answers waited; a PNG this size decodes in a fraction of a millisecond
 * (issue 18: 322 against 300 ms, side by side).
 */
export const FAVICON_SOURCE = 'build/icons/64x64.png';
export const FAVICON_FILE = 'favicon.png';

function favicon(): Plugin {
  return {
    name: 'drover-favicon',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: FAVICON_FILE, source: readFileSync(resolve(root, FAVICON_SOURCE)) });
    },
  };
}

const SVELTE_CHUNK = 'svelte';
const FIRST_SCREEN_CHUNK = 'first-screen';
const APP_CHUNK = 'app-main';

/** Set to build the page unminified, each module marked with its path (scripts/first-screen-modules.ts reads it). */
export const UNMINIFIED_ENV = 'DROVER_BUILD_UNMINIFIED';

/**
 * The app's modules that opening a session runs, as paths from the repository's root, found by
 * scripts/first-screen-modules.ts (`npm run first-screen`) and kept in this file.
 */
export const FIRST_SCREEN_LIST = 'renderer/first-screen.json';

/** A module's path from the repository's root, with forward slashes on every system. */
const fromRoot = (id: string) => normalizePath(relative(root, id));

function firstScreenModules(): Set<string> {
  const list: unknown = JSON.parse(readFileSync(resolve(root, FIRST_SCREEN_LIST), 'utf8'));
  if (!Array.isArray(list) || !list.every((path) => typeof path === 'string'))
    throw new Error(`${FIRST_SCREEN_LIST} must be a JSON array of module paths`);
  return new Set(list);
}

/**
 * How the page's code is cut into chunks, beyond what its imports decide:
 *
 * - Svelte's runtime (with clsx, which it imports) is a chunk of its own: mounting the app calls
 *   most of it.
 * - The app's modules that the first screen runs (FIRST_SCREEN_LIST) are one chunk, and the
 *   rest of what the app imports as it loads is another (APP_CHUNK), with the app's entry
 *   (app-main.ts) in a small chunk of its own in front of both. The two import each other; the
 *   entry imports the rest first (app-main.ts's own order), so the first-screen modules are
 *   evaluated before the others, and a first-screen module must not read another module's value
 *   at its top level, or the page fails to load ("Cannot access … before initialization", as
 *   every end-to-end test would show). Components and the state classes only use their imports
 *   inside functions.
 * - What the app imports on demand is left to the bundler: the settings page, the terminal, a
 *   highlighter's grammar, and the panel's other views (components/tasks/panel-views.ts). A
 *   module they share with the app stays in the app's chunk rather than go to a small chunk of
 *   its own, which the first open would fetch as well.
 *
 * Svelte's and the first screen's chunks carry V8's compile hint (compileHints): V8 compiles them whole on a background thread
 * as they download, where without it each function is compiled on the page's main thread when
 * first called. Opening the big session in a new profile, three runs of 16 to 20 loads each way
 * (interleaved, medians): the page's main thread ran scripts for 36 to 44 ms less (busy 28 to
 * 42 ms less), and the first screen came 7 to 29 ms sooner, against the app's modules all in one
 * lazily compiled chunk (issue 18). The hint on the whole app's chunk had made a first open slower
 * (median 881 against 768 ms, 20 loads each way): V8 then compiled what the first screen never
 * runs too, and the main thread waited for it.
 */
function codeSplitting(
  pageEntry: string,
  appEntry: string,
): {
  includeDependenciesRecursively: boolean;
  groups: {
    name: string | ((id: string, context: ChunkingContext) => string | null);
    /** The group's label in rolldown's timing report, where `name` is a function (rolldown asks for one). */
    debugName?: string;
    test?: (id: string) => boolean;
  }[];
} {
  // The scan for the list (an unminified build) reads the app's chunk whole.
  const firstScreen = process.env[UNMINIFIED_ENV] ? new Set<string>() : firstScreenModules();
  return {
    // A group holds the modules it names, not what they import (that would be the whole app).
    includeDependenciesRecursively: false,
    groups: [
      { name: SVELTE_CHUNK, test: (id) => /^node_modules\/(?:svelte|clsx)\//.test(fromRoot(id)) },
      { name: FIRST_SCREEN_CHUNK, test: (id) => firstScreen.has(fromRoot(id)) },
      // Whatever else the app imports as it loads, shared or not; the page's entry (main.ts,
      // boot.ts) keeps its own modules, as it runs before the app has loaded.
      {
        debugName: APP_CHUNK,
        name: (id, context) =>
          id !== appEntry && staticGraph(context, appEntry).has(id) && !staticGraph(context, pageEntry).has(id)
            ? APP_CHUNK
            : null,
      },
    ],
  };
}

/** The part of a module's information this config reads while chunks are made (rolldown's ChunkingContext). */
interface ChunkingContext {
  getModuleInfo(id: string): { importedIds: readonly string[] } | null;
}

const staticGraphs = new WeakMap<object, Set<string>>();

/**
 * Every module `entry` imports statically, however deep, itself included. Worked out once per
 * chunking pass: within one, rolldown hands out the same module information objects.
 */
function staticGraph(context: ChunkingContext, entry: string): Set<string> {
  const root = context.getModuleInfo(entry);
  if (!root) throw new Error(`the app's entry (${entry}) is not in the module graph`);
  let graph = staticGraphs.get(root);
  if (graph) return graph;
  graph = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const next of context.getModuleInfo(queue.pop()!)?.importedIds ?? []) {
      if (graph.has(next)) continue;
      graph.add(next);
      queue.push(next);
    }
  }
  staticGraphs.set(root, graph);
  return graph;
}

/**
 * Which components keep their styles in the page's stylesheet: those the first screen shows
 * (FIRST_SCREEN_LIST). Every other component of the page's own (the boards behind the panel's
 * other tabs, the task views, the dialogs, the settings page) is compiled with Svelte's
 * `css: 'injected'`: its scoped rules travel in its script and go into the page as a style
 * element when it is first shown (the page's CSP allows inline style elements). The browser
 * indexes every rule of a stylesheet before it runs the page's scripts, and these were 25 of the
 * stylesheet's 59 KB (232 of 557 rules): opening the big session in a new profile, the first
 * screen came a mean 7.7 ± 5.6 ms sooner (20 interleaved pairs; issue 18). A list that falls behind
 * moves a component's rules out of the stylesheet, never drops them.
 */
function cssInjectedFor(
  firstScreen: ReadonlySet<string>,
): (data: { filename: string }) => { css: 'injected' } | undefined {
  return ({ filename }) => {
    const path = fromRoot(filename);
    // The scan for the list (an unminified build) builds everything as usual.
    if (process.env[UNMINIFIED_ENV] || !path.startsWith('renderer/') || firstScreen.has(path)) return undefined;
    return { css: 'injected' };
  };
}

/**
 * V8's compile hint (`//# allFunctionsCalledOnLoad`, first line) on the chunks whose functions the
 * first screen calls (codeSplitting): Svelte's runtime, and the app's first-screen modules. V8
 * then compiles them whole on a background thread as they stream in. Svelte's runtime alone
 * (before the app's modules were split): medians to the first screen of 411 against 443 ms
 * (16 loads each way, interleaved), 402 against 432 ms (20 each, in alternating blocks). Added
 * after everything else has written the chunks (Vite's preload helper puts a line of its own
 * first), and after minification, which would drop the comment.
 */
function compileHints(): Plugin {
  const hint = '//# allFunctionsCalledOnLoad';
  return {
    name: 'drover-compile-hints',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const chunk of Object.values(bundle))
          if (chunk.type === 'chunk' && (chunk.name === SVELTE_CHUNK || chunk.name === FIRST_SCREEN_CHUNK))
            chunk.code = `${hint}\n${chunk.code.replace(`${hint}\n`, '')}`;
      },
    },
  };
}

export default defineConfig({
  main: {
    plugins: [bashGrammar()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // The Electron entry and the headless host share every service; both are built.
        input: {
          main: resolve(root, 'electron/main.ts'),
          host: resolve(root, 'electron/host.ts'),
          // A session's sandbox runs in a worker thread of its own (electron/sandbox/sandbox-runtime.ts).
          'sandbox-worker': resolve(root, 'electron/sandbox/sandbox-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload can require nothing but Electron: bundle zod and our shared code into it.
      externalizeDeps: false,
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve(root, 'electron/preload.ts') },
        // A sandboxed preload cannot load ES modules.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    resolve: { alias: { '@shared': resolve(root, 'shared') } },
    plugins: [
      staticIcons(),
      svelte({ dynamicCompileOptions: cssInjectedFor(firstScreenModules()) }),
      preloadApp(resolve(root, 'renderer/src/app-main.ts')),
      pageScript(),
      compileHints(),
      favicon(),
    ],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rollupOptions: {
        input: resolve(root, 'renderer/index.html'),
        output: {
          codeSplitting: codeSplitting(
            resolve(root, 'renderer/src/main.ts'),
            resolve(root, 'renderer/src/app-main.ts'),
          ),
        },
      },
      // Less to parse before the first screen: the page's code shrinks from 1.2 MB to 0.55 MB.
      minify: !process.env[UNMINIFIED_ENV],
    },
  },
});
