import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { staticIcons } from './scripts/static-icons.js';

/**
 * Two projects: the services in Node, and the renderer's components in jsdom (the Svelte
 * testing plugin resolves packages for the browser, which the Node tests must not get).
 * Tests are chosen by platform, never skipped: the Windows runner takes the portable tests
 * and the real Win32 ones; unix takes everything else (real processes, signals, ptys).
 */
const PORTABLE = [
  'test/layering.test.ts',
  'test/packaging.test.ts',
  'test/core/**/*.test.ts',
  'test/ipc/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/sessions/**/*.test.ts',
  'test/host/cli.test.ts',
  'test/host/host-server.test.ts',
  'test/pool/rules.test.ts',
  'test/process/leftovers.test.ts',
  'test/notify.test.ts',
];
const windows = process.platform === 'win32';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        test: {
          name: 'services',
          include: windows ? [...PORTABLE, 'test/process/windows-real.test.ts'] : ['test/**/*.test.ts'],
          exclude: windows ? [] : ['test/process/windows-real.test.ts', '**/node_modules/**'],
          environment: 'node',
          // The sandbox is off unless a test turns it on (test/sandbox/): the rest test everything else.
          env: { DROVER_SANDBOX: 'off' },
          pool: 'forks',
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      {
        plugins: [
          staticIcons(),
          svelte({ configFile: resolve(import.meta.dirname, 'renderer/svelte.config.js') }),
          svelteTesting(),
        ],
        resolve: { alias: { '@shared': resolve(import.meta.dirname, 'shared') } },
        test: {
          name: 'renderer',
          include: ['renderer/src/**/*.test.ts'],
          environment: 'jsdom',
        },
      },
    ],
  },
});
