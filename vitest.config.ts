import { defineConfig } from 'vitest/config';

/**
 * Tests are chosen by platform, never skipped: the Windows runner takes the portable tests
 * and the real Win32 ones; unix takes everything else (real processes, signals, ptys).
 */
const PORTABLE = [
  'test/layering.test.ts',
  'test/packaging.test.ts',
  'test/ipc/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/sessions/**/*.test.ts',
  'test/host/cli.test.ts',
  'test/host/host-server.test.ts',
  'test/pool/rules.test.ts',
  'test/process/leftovers.test.ts',
];

export default defineConfig({
  test: {
    include: process.platform === 'win32' ? [...PORTABLE, 'test/process/windows-real.test.ts'] : ['test/**/*.test.ts'],
    exclude: process.platform === 'win32' ? [] : ['test/process/windows-real.test.ts', '**/node_modules/**'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
