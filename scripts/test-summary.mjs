// Reads the runners' JSON reports and prints the one closing line CI looks for:
// `tests: N passed, N failed`. Exits non-zero if anything failed or nothing ran.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export function summarise(root) {
  let passed = 0;
  let failed = 0;
  const missing = [];
  const vitest = join(root, '.reports', 'vitest.json');
  if (existsSync(vitest)) {
    const report = JSON.parse(readFileSync(vitest, 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    // A file that failed without a failing test (it did not load, or a hook threw) still counts, once.
    for (const file of report.testResults ?? []) {
      const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed').length;
      if (file.status === 'failed' && failedTests === 0) failed += 1;
    }
  } else missing.push('vitest');
  const playwright = join(root, '.reports', 'playwright.json');
  if (existsSync(playwright)) {
    const stats = JSON.parse(readFileSync(playwright, 'utf8')).stats ?? {};
    passed += stats.expected ?? 0;
    failed += (stats.unexpected ?? 0) + (stats.flaky ?? 0);
    if ((stats.expected ?? 0) + (stats.unexpected ?? 0) + (stats.flaky ?? 0) === 0)
      missing.push('playwright (no test ran)');
  } else missing.push('playwright');
  return { passed, failed, missing };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { passed, failed, missing } = summarise(process.cwd());
  if (missing.length) console.log(`missing reports: ${missing.join(', ')}`);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || passed === 0 || missing.length > 0 ? 1 : 0);
}
