// `npm test`: build, type-check, unit and integration tests, then e2e in Chromium.
// Every step runs even after a failure, so one run shows everything that is wrong.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { summarise } from './test-summary.mjs';

const root = resolve(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
rmSync(join(root, '.reports'), { recursive: true, force: true });
mkdirSync(join(root, '.reports'));

const steps = [
  ['lint (ESLint, no warnings)', bin('eslint'), ['.', '--max-warnings', '0']],
  ['format (Prettier)', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
  ['build', bin('electron-vite'), ['build']],
  ['type-check (electron, shared, tests)', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']],
  [
    'type-check (renderer)',
    bin('svelte-check'),
    ['--tsconfig', 'renderer/tsconfig.json', '--fail-on-warnings', '--output', 'human'],
  ],
  [
    'unit and integration tests',
    bin('vitest'),
    ['run', '--reporter=default', '--reporter=json', '--outputFile.json=.reports/vitest.json'],
  ],
  ['e2e tests (Chromium)', bin('playwright'), ['test']],
];

const failedSteps = [];
for (const [label, command, args] of steps) {
  console.log(`\n=== ${label} ===`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) failedSteps.push(label);
  console.log(`=== ${label}: ${result.status === 0 ? 'ok' : 'FAILED'} (${seconds} s) ===`);
}

const { passed, failed, missing } = summarise(root);
if (failedSteps.length) console.log(`\nfailed steps: ${failedSteps.join('; ')}`);
if (missing.length) console.log(`missing reports: ${missing.join(', ')}`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failedSteps.length || failed || passed === 0 || missing.length ? 1 : 0);
