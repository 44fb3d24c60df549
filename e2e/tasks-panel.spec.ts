import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from './fixtures.js';

test('the tasks panel: newest first, live, stop from a card, Finished counts, Clear, reload, Ctrl+B', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  const input = page.getByTestId('composer-input');
  // The two short tasks end when the test says so (a file appears), never on a timer a busy machine could outrun.
  const whenTold = 'while [ ! -e go ]; do sleep 0.05; done';
  const commands = ['&sleep 60', `&${whenTold}; echo b`, `&${whenTold}; echo c`];
  for (const [index, command] of commands.entries()) {
    await input.fill(command);
    await input.press('Enter');
    // Each starts before the next is sent: starts sent together may begin in any order on a busy machine.
    await expect(page.getByTestId('tool-row').nth(index)).toHaveAttribute('data-status', 'running');
  }
  await expect(page.getByTestId('tasks-chip')).toContainText('3 running tasks');
  await page.getByTestId('tasks-chip').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+\/tasks$/);
  const panel = page.getByTestId('tasks-panel');
  const cards = panel.getByTestId('task-card');
  await expect(cards).toHaveCount(3);
  // Newest first, by start time.
  await expect(cards.nth(0)).toHaveAttribute('data-task-id', 'bg_3');
  await expect(cards.nth(2)).toHaveAttribute('data-task-id', 'bg_1');
  const elapsed = panel.locator('[data-testid="task-card"][data-task-id="bg_1"]').getByTestId('task-elapsed');
  const first = await elapsed.textContent();
  await expect(elapsed).not.toHaveText(first ?? '', { timeout: 5_000 });
  writeFileSync(join(host.dataDir, 'go'), '');

  await expect(panel.getByTestId('finished-toggle')).toContainText('Finished 2', { timeout: 15_000 });
  await expect(cards).toHaveCount(1);
  const shot = testInfo.outputPath('tasks-panel.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('tasks panel', { path: shot, contentType: 'image/png' });

  await cards.first().getByTestId('task-card-stop').click();
  await expect(cards).toHaveCount(0, { timeout: 15_000 });
  await expect(panel.getByTestId('finished-toggle')).toContainText('Finished 3');
  await panel.getByTestId('finished-toggle').click();
  await expect(panel.getByTestId('finished-row')).toHaveCount(3);
  await expect(page.getByTestId('tasks-chip')).toContainText('3 background tasks');

  // Open one: its output as a terminal shows it.
  await panel.locator('[data-testid="finished-row"][data-task-id="bg_2"]').click();
  await expect(page).toHaveURL(/\/tasks\/bg_2$/);
  await expect(page.getByTestId('task-terminal')).toContainText('b');
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = testInfo.outputPath('task-view-dark.png');
  await page.screenshot({ path: dark });
  await testInfo.attach('task view (dark)', { path: dark, contentType: 'image/png' });
  await page.emulateMedia({ colorScheme: 'light' });

  await page.reload();
  await expect(page.getByTestId('task-view')).toBeVisible();
  await page.getByTestId('task-view-back').click();
  await expect(page.getByTestId('tasks-panel')).toBeVisible();

  await page.getByTestId('tasks-clear').click();
  // Nothing finished is left: no "Finished 0" disclosure, and Clear can be undone for a while.
  await expect(page.getByTestId('tasks-cleared')).toBeVisible();
  await expect(page.getByTestId('finished-toggle')).toHaveCount(0);

  // Ctrl+B closes and opens the panel.
  await page.getByTestId('composer-input').click();
  await page.keyboard.press('Control+b');
  await expect(page.getByTestId('tasks-panel')).toBeHidden();
  await page.keyboard.press('Control+b');
  await expect(page.getByTestId('tasks-panel')).toBeVisible();
});
