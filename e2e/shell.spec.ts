import { test, expect } from './fixtures.js';

test('the operator backgrounds a command with &, watches it finish, and finds it again after a reload', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);

  const input = page.getByTestId('composer-input');
  await input.fill('&for i in 1 2 3; do echo "line $i"; sleep 0.4; done; printf "\\033[32mall green\\033[0m\\n"');
  await expect(page.getByTestId('composer-mode')).toBeVisible();
  await input.press('Enter');

  const row = page.getByTestId('tool-row').first();
  await expect(row).toHaveAttribute('data-status', 'running');
  await expect(row.getByTestId('tool-output')).toContainText('line 1');
  await expect(row).toHaveAttribute('data-status', 'succeeded', { timeout: 15_000 });
  await expect(row.getByTestId('tool-output')).toHaveText('line 1\nline 2\nline 3\nall green');
  await expect(row.getByTestId('tool-exit')).toContainText('0');

  // A foreground line that fails shows its exit code; output with markup stays text.
  await input.fill('!echo "<b>not bold</b>"; exit 3');
  await input.press('Enter');
  const failed = page.getByTestId('tool-row').nth(1);
  await expect(failed).toHaveAttribute('data-status', 'failed', { timeout: 15_000 });
  await expect(failed.getByTestId('tool-exit')).toContainText('3');
  await expect(failed.getByTestId('tool-output')).toHaveText('<b>not bold</b>');
  await expect(failed.locator('b')).toHaveCount(0);

  await page.reload();
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  const again = page.getByTestId('tool-row');
  await expect(again).toHaveCount(2);
  await expect(again.first()).toHaveAttribute('data-status', 'succeeded');
  await expect(again.first().getByTestId('tool-output')).toContainText('all green');
  await expect(again.nth(1)).toHaveAttribute('data-status', 'failed');

  const shot = testInfo.outputPath('shell.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('transcript with tool rows', { path: shot, contentType: 'image/png' });
});

test('a running background task can be stopped from its row', async ({ page, host, pageProblems }, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await page.getByTestId('composer-input').fill('&echo waiting; sleep 60');
  await page.getByTestId('composer-input').press('Enter');
  const row = page.getByTestId('tool-row').first();
  await expect(row).toHaveAttribute('data-status', 'running');
  await expect(row.getByTestId('tool-output')).toContainText('waiting');
  await row.getByTestId('tool-stop').click();
  await expect(row).toHaveAttribute('data-status', 'stopped', { timeout: 15_000 });
  await expect(row.getByTestId('tool-exit')).toContainText('143');
  await page.emulateMedia({ colorScheme: 'dark' });
  const shot = testInfo.outputPath('stopped-dark.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('stopped task (dark)', { path: shot, contentType: 'image/png' });
});
