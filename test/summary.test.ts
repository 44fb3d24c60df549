import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without types
import { summarise } from '../scripts/test-summary.mjs';
import { tempDir } from './helpers.js';

function reports(vitest: unknown, playwright: unknown): string {
  const root = tempDir();
  mkdirSync(join(root, '.reports'));
  writeFileSync(join(root, '.reports', 'vitest.json'), JSON.stringify(vitest));
  writeFileSync(join(root, '.reports', 'playwright.json'), JSON.stringify(playwright));
  return root;
}

describe('the closing line', () => {
  it('counts failed tests, not the suites and files that hold them; a file that could not load counts once', () => {
    const root = reports(
      {
        numPassedTests: 10,
        numFailedTests: 2,
        numFailedTestSuites: 3,
        testResults: [
          { status: 'failed', assertionResults: [{ status: 'failed' }, { status: 'failed' }, { status: 'passed' }] },
          { status: 'failed', assertionResults: [] },
          { status: 'passed', assertionResults: [{ status: 'passed' }] },
        ],
      },
      { stats: { expected: 3, unexpected: 1, flaky: 0 } },
    );
    expect(summarise(root)).toEqual({ passed: 13, failed: 4, missing: [] });
  });
});
