import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';

/** Sends one shell line and waits for its transcript row to reach `status`. */
async function run(page: Page, line: string, status: string, index: number): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(line);
  await input.press('Enter');
  await expect(page.getByTestId('tool-row').nth(index)).toHaveAttribute('data-status', status);
}

/** A shell loop that ends when the test creates `name` in the data folder (never a timer). */
const until = (name: string) => `while [ ! -e ${name} ]; do sleep 0.05; done`;

test('counters, order and detail: a foreground echo is no background task; Finished by start time; the header tells all', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await run(page, '!echo hello', 'succeeded', 0);
  // A foreground command that ended in its wait is not a background task: no chip.
  await expect(page.getByTestId('tool-row').first()).toContainText('hello');
  await expect(page.getByTestId('tasks-chip')).toHaveCount(0);

  // A task that prints nothing until told; one started later that ends at once.
  await run(page, `&${until('go-a')}; echo A-done`, 'running', 1);
  await expect(page.getByTestId('tasks-chip')).toHaveText('1 running task');
  await page.getByTestId('tasks-chip').click();
  const panel = page.getByTestId('tasks-panel');
  await expect(panel.getByTestId('task-card-timeout')).toContainText('timeout');

  // Its view: no output yet, the header's facts, the elapsed time ticking.
  await panel
    .getByTestId('task-card')
    .first()
    .getByRole('button', { name: /^Open bg_2/ })
    .click();
  const view = page.getByTestId('task-view');
  await expect(view.getByTestId('task-no-output')).toHaveText('No output yet');
  await expect(view.getByTestId('task-view-status')).toHaveText('running');
  await expect(view.getByTestId('task-started')).not.toBeEmpty();
  await expect(view.getByTestId('task-view-timeout')).toContainText('left');
  const elapsed = view.getByTestId('task-view-elapsed');
  const before = (await elapsed.textContent()) ?? '';
  await expect(elapsed).not.toHaveText(before, { timeout: 10_000 });
  await shoot(page, testInfo, 'task-view-no-output');

  await run(page, '&echo B-done', 'succeeded', 2);
  writeFileSync(join(host.dataDir, 'go-a'), '');
  await expect(view.getByTestId('task-terminal')).toContainText('A-done');
  await expect(view.getByTestId('task-no-output')).toHaveCount(0);
  await expect(view.getByTestId('task-view-exit')).toHaveText('exit 0');
  await expect(view.getByTestId('task-view-timeout')).not.toContainText('left');

  await view.getByTestId('task-view-back').click();
  await expect(page.getByTestId('tasks-chip')).toHaveText('2 background tasks');
  await panel.getByTestId('finished-toggle').click();
  // Newest first by start time: B started last (though A ended last), then A, then the echo.
  await expect(panel.getByTestId('finished-row')).toHaveCount(3);
  const order = await panel.getByTestId('finished-row').evaluateAll((rows) => rows.map((row) => row.dataset.taskId));
  expect(order).toEqual(['bg_3', 'bg_2', 'bg_1']);
});

test('no "Finished 0" while nothing has finished', async ({ page, host, pageProblems }) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await run(page, `&${until('never')}`, 'running', 0);
  await page.getByTestId('tasks-chip').click();
  await expect(page.getByTestId('task-card')).toHaveCount(1);
  await expect(page.getByTestId('finished-toggle')).toHaveCount(0);
  await expect(page.getByTestId('tasks-clear')).toHaveCount(0);
  await page.getByTestId('task-card-stop').click();
  await expect(page.getByTestId('finished-toggle')).toContainText('Finished 1');
});

test.describe('actions', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('rerun, copy, log folder, save log, filter Finished, Clear with undo', async ({
    page,
    host,
    pageProblems,
  }, testInfo) => {
    void pageProblems;
    await page.goto(host.url);
    await page.getByTestId('new-session').click();
    await run(page, '!echo one', 'succeeded', 0);
    await run(page, '&echo two; exit 3', 'failed', 1);
    await run(page, `&${until('never')}`, 'running', 2);
    await page.getByTestId('tasks-chip').click();
    const panel = page.getByTestId('tasks-panel');
    await panel.getByTestId('task-card-stop').click();
    await expect(panel.getByTestId('task-card')).toHaveCount(0);

    // Filter by status, with counts.
    await panel.getByTestId('finished-toggle').click();
    await expect(panel.getByTestId('finished-row')).toHaveCount(3);
    const filter = panel.getByTestId('finished-filter');
    await expect(filter.locator('option')).toHaveText([
      'All (3)',
      'Succeeded (1)',
      'Failed (1)',
      'Stopped (1)',
      'Timed out (0)',
    ]);
    await filter.selectOption('failed');
    await expect(panel.getByTestId('finished-row')).toHaveCount(1);
    await expect(panel.getByTestId('finished-row')).toHaveAttribute('data-status', 'failed');
    await shoot(page, testInfo, 'finished-filtered');
    await filter.selectOption('timed_out');
    await expect(panel.getByTestId('finished-none')).toBeVisible();
    await filter.selectOption('all');

    // Copy the command, with a visible confirmation.
    await panel.locator('[data-testid="finished-row"][data-task-id="bg_1"]').click();
    const view = page.getByTestId('task-view');
    await view.getByTestId('task-copy-command').click();
    await expect(view.getByTestId('task-copy-command')).toHaveText('Copied');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe('echo one');

    // Save the whole log: a download of the raw file.
    const [download] = await Promise.all([page.waitForEvent('download'), view.getByTestId('task-save-log').click()]);
    expect(download.suggestedFilename()).toBe('bg_1.log');
    expect(readFileSync((await download.path())!, 'utf8')).toBe('one\n');

    // The log's folder: the headless host shows the path (the browser may be on another machine).
    await view.getByTestId('task-log-folder').click();
    await expect(view.getByTestId('task-log-path')).toContainText('output.log');

    // Rerun: same command, a new task (and a new transcript row).
    await view.getByTestId('task-rerun').click();
    await expect(page.getByTestId('tool-row')).toHaveCount(4);
    await expect(page.getByTestId('tool-row').nth(3)).toHaveAttribute('data-status', 'succeeded');
    await expect(page.getByTestId('tool-row').nth(3)).toHaveAttribute('data-task-id', 'bg_4');
    await expect(panel.getByTestId('finished-toggle')).toContainText('Finished 4');
    await expect(panel.getByTestId('finished-row').first()).toHaveAttribute('data-task-id', 'bg_4');
    await expect(panel.getByTestId('finished-row').first()).toContainText('echo one');

    // Clear, then Undo: everything is back.
    await panel.getByTestId('tasks-clear').click();
    await expect(panel.getByTestId('tasks-cleared')).toContainText('Cleared 4 finished tasks');
    await expect(panel.getByTestId('finished-row')).toHaveCount(0);
    await panel.getByTestId('tasks-undo-clear').click();
    await expect(panel.getByTestId('finished-row')).toHaveCount(4);
    await expect(panel.getByTestId('tasks-cleared')).toHaveCount(0);
    // Clear for good: once the undo window closes the host forgets them (a reload shows none).
    await panel.getByTestId('tasks-clear').click();
    await expect(panel.getByTestId('tasks-cleared')).toHaveCount(0, { timeout: 20_000 });
    await page.reload();
    await expect(page.getByTestId('tasks-panel')).toBeVisible();
    await expect(page.getByTestId('task-card')).toHaveCount(0);
    await expect(page.getByTestId('finished-toggle')).toHaveCount(0);
    // The transcript keeps its rows.
    await expect(page.getByTestId('tool-row')).toHaveCount(4);
  });
});
