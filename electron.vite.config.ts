import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const root = import.meta.dirname;

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // The Electron entry and the headless host share every service; both are built.
        input: { main: resolve(root, 'electron/main.ts'), host: resolve(root, 'electron/host.ts') },
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
    plugins: [svelte()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rollupOptions: { input: resolve(root, 'renderer/index.html') },
    },
  },
});
