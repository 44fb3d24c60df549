import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { removeDataDir, startHost } from './host.js';
import { seedBigSession } from './seed-session.js';
import { shoot } from './screens.js';

// The panel's task view and its Work and Schedules tabs are a chunk the page fetches after its
// first screen (renderer/src/components/tasks/load-panel-views.svelte.ts). A page opened right on
// a task waits for it, and a fetch that fails says so and can be asked again.
const VIEWS = /\/assets\/panel-views-[\w-]+\.js$/;

base('a task opened by its address as the page opens: its view comes, and the focus with it', async ({ page }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-views-'));
  seedBigSession(dataDir, { session: 'views', finished: 5, messages: 3, lastText: 'The last word.' });
  const host = await startHost({ dataDir });
  try {
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    await page.goto(`${host.url}#/s/views/tasks/bg_2`);
    await expect(page.getByTestId('task-view')).toContainText('npm run step -- 1');
    await expect(page.getByTestId('task-view-back')).toBeFocused();
    expect(problems).toEqual([]);
  } finally {
    await host.stop();
    removeDataDir(dataDir);
  }
});

base('the panel says when its views could not load, and Retry brings them', async ({ page }, testInfo) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-views-'));
  seedBigSession(dataDir, { session: 'views', finished: 5, messages: 3, lastText: 'The last word.' });
  const host = await startHost({ dataDir });
  try {
    let refuse = true;
    const asked: string[] = [];
    await page.route(VIEWS, (route) => {
      asked.push(route.request().url());
      return refuse ? route.abort('connectionrefused') : route.continue();
    });
    await page.goto(`${host.url}#/s/views/tasks/bg_2`);
    const failed = page.getByTestId('panel-views-failed');
    await expect(failed).toContainText('This view could not load');
    await expect(page.getByTestId('task-view')).toHaveCount(0);
    // The rest of the page is unharmed: the transcript and the panel's tabs are there.
    await expect(page.getByTestId('transcript').locator('li').last()).toContainText('The last word.');
    await expect(page.getByTestId('panel-tab-work')).toBeVisible();
    await shoot(page, testInfo, 'panel-views-failed');

    refuse = false;
    await page.getByTestId('panel-views-retry').click();
    // A browser that fetches a failed module again shows the view now; one that keeps the failure
    // (a browser without whatwg/html#10327, as Chromium 150 is) fails again without asking the host, and then
    // offers to reload the page, which comes back at the same task.
    const reload = page.getByTestId('panel-views-reload');
    const view = page.getByTestId('task-view');
    await expect(view.or(reload)).toBeVisible();
    if (await reload.isVisible()) {
      expect(asked).toHaveLength(1);
      await expect(failed).toContainText('may keep the failure until the page is reloaded');
      await shoot(page, testInfo, 'panel-views-failed-again');
      await reload.click();
    }
    await expect(view).toContainText('npm run step -- 1');
    await expect(failed).toHaveCount(0);
    // Asked again, not answered from a failure the page kept.
    expect(asked.length).toBeGreaterThanOrEqual(2);
    // The other views came with it: the Work tab shows at once.
    await page.getByTestId('panel-tab-work').click();
    await expect(page.getByTestId('work-board')).toBeVisible();
  } finally {
    await host.stop();
    removeDataDir(dataDir);
  }
});
