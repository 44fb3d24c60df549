import { test as base, expect, type Page } from '@playwright/test';
import { removeDataDir, startHost, type RunningHost } from './host.js';

/** Console errors and CSP violations fail the test: the page must run clean under its policy. */
function watchConsole(page: Page, problems: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
}

export const test = base.extend<{ host: RunningHost; pageProblems: string[] }>({
  // Playwright reads a fixture's dependencies from its first parameter, which must be a pattern.
  // eslint-disable-next-line no-empty-pattern
  host: async ({}, use) => {
    const host = await startHost();
    await use(host);
    await host.stop();
    removeDataDir(host.dataDir);
  },
  pageProblems: async ({ page }, use) => {
    const problems: string[] = [];
    watchConsole(page, problems);
    await use(problems);
    expect(problems, 'console errors on the page').toEqual([]);
  },
});

export { expect };
