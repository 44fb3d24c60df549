import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { normalizePath, type Plugin } from 'vite';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { staticIcons } from './scripts/static-icons.js';

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
 * preloadApp), what the entry itself imports on the fly at once (the frames' schemas, which the
 * connection loads as it opens: ws-client.ts), and every chunk any of these imports, however deep.
 * Chunks only imported on demand (the terminal, settings, a highlighter's grammar) are not among them.
 */
function firstLoadChunks(bundle: OutputBundle, appEntry: string): string[] {
  const chunks = Object.values(bundle).filter((item) => item.type === 'chunk');
  // Module ids use forward slashes on every system (Windows included).
  const id = normalizePath(appEntry);
  const app = chunks.find((chunk) => chunk.facadeModuleId === id);
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

/**
 * V8's compile hint (`//# allFunctionsCalledOnLoad`, first line) on Svelte's runtime alone: V8
 * then compiles the chunk's every function on a background thread as it streams in, where without
 * it each is compiled on the page's main thread when first called, and mounting the app calls
 * most of them. Opening the big session in a new profile, medians to the first screen: 411 against
 * 443 ms (16 loads each way, interleaved; the main thread busy 361 against 374 ms), 402 against
 * 432 ms (20 each, in alternating blocks); one run in a slow spell of the machine gave 461 against
 * 471 and another 573 against 543. Not on the
 * app's chunk: there it compiles the many functions the first screen never calls too, and a first
 * open was slower (median 881 against 768 ms, 20 loads each way, interleaved; issue 18). Added
 * after minification, which would drop the comment.
 */
function svelteCompileHint(): Plugin {
  return {
    name: 'drover-svelte-compile-hint',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle))
        if (chunk.type === 'chunk' && chunk.name === SVELTE_CHUNK)
          chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
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
      svelte(),
      preloadApp(resolve(root, 'renderer/src/app-main.ts')),
      svelteCompileHint(),
      favicon(),
    ],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rollupOptions: {
        input: resolve(root, 'renderer/index.html'),
        // Svelte's runtime in a chunk of its own, which svelteCompileHint marks.
        output: {
          manualChunks: (id) => (normalizePath(id).includes('/node_modules/svelte/') ? SVELTE_CHUNK : undefined),
        },
      },
      // Less to parse before the first screen: the page's code shrinks from 1.2 MB to 0.55 MB.
      minify: true,
    },
  },
});
