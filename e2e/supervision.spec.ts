import { test, expect } from './fixtures.js';

test('a task whose shell exited keeps running while what it started runs; its view says how it is held; Stop ends it all', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const info = (await (
    await page.request.get(`${host.origin}/api/info`, { headers: { Authorization: `Bearer ${host.token}` } })
  ).json()) as {
    containment: { kind: string };
  };
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  const input = page.getByTestId('composer-input');
  await input.fill('&setsid sleep 600 & echo started a daemon; sleep 0.3');
  await input.press('Enter');
  await page.getByTestId('tasks-chip').click();
  const card = page.getByTestId('tasks-panel').getByTestId('task-card');
  await expect(card).toHaveCount(1);
  await expect(card.getByTestId('task-lingering')).toContainText('its shell has exited; what it started still runs', {
    timeout: 15_000,
  });
  const shot = testInfo.outputPath('lingering-card.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('a task whose shell exited', { path: shot, contentType: 'image/png' });

  await card.getByRole('button', { name: /Open bg_1/ }).click();
  const view = page.getByTestId('task-view');
  await expect(view).toHaveAttribute('data-status', 'running');
  await expect(view.getByTestId('task-containment')).toHaveAttribute('data-kind', info.containment.kind);
  await expect(view.getByTestId('task-view-lingering')).toBeVisible();
  await expect(page.getByTestId('task-terminal')).toContainText('started a daemon');
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = testInfo.outputPath('lingering-view-dark.png');
  await page.screenshot({ path: dark });
  await testInfo.attach('its view (dark)', { path: dark, contentType: 'image/png' });
  await page.emulateMedia({ colorScheme: 'light' });

  await view.getByTestId('task-view-stop').click();
  await expect(view).toHaveAttribute('data-status', 'stopped', { timeout: 15_000 });
});

test('Settings: how tasks are held here, and the variables passed to tasks on purpose', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('open-settings').click();
  await expect(page.getByTestId('settings-containment')).toContainText("Each task's processes are held in");
  const section = page.getByTestId('pass-environment-section');
  await section.getByTestId('pass-environment-input').fill('NOT A NAME');
  await section.getByTestId('pass-environment-add').click();
  await expect(section.getByTestId('pass-environment-error')).toContainText('is not an environment variable name');
  await section.getByTestId('pass-environment-input').fill('OPENAI_API_KEY');
  await section.getByTestId('pass-environment-add').click();
  await expect(section.getByTestId('pass-environment-item')).toHaveAttribute('data-value', 'OPENAI_API_KEY');
  const stored = (await (
    await page.request.get(`${host.origin}/api/settings`, { headers: { Authorization: `Bearer ${host.token}` } })
  ).json()) as {
    tasks: { pass_environment: string[] };
  };
  expect(stored.tasks.pass_environment).toEqual(['OPENAI_API_KEY']);
  await section.scrollIntoViewIfNeeded();
  const shot = testInfo.outputPath('settings-environment.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('settings: task environment', { path: shot, contentType: 'image/png' });
  await section.getByTestId('pass-environment-remove').click();
  await expect(section.getByTestId('pass-environment-item')).toHaveCount(0);
});

test('Settings: an allowlist entry holding a real ESC shows it as a token, apart from the typed text \\x1b', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const put = await page.request.put(`${host.origin}/api/settings`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: { commandAllowlist: ['npm run build', 'printf \u001b[31m', 'printf \\x1b[31m'] },
  });
  expect(put.ok()).toBe(true);
  await page.goto(host.url);
  await page.getByTestId('open-settings').click();
  const section = page.getByTestId('allowlist-section');
  const items = section.getByTestId('allowlist-item');
  await expect(items).toHaveCount(3);
  await expect(items.nth(1).getByTestId('escape-token')).toHaveText('⟨ESC⟩');
  await expect(items.nth(2).getByTestId('escape-token')).toHaveCount(0);
  await expect(items.nth(2)).toContainText('printf \\x1b[31m');
  await expect(items.nth(1).getByTestId('allowlist-remove')).toHaveAttribute('aria-label', 'Remove printf \\x1b[31m');
  await section.scrollIntoViewIfNeeded();
  const shot = testInfo.outputPath('settings-allowlist.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('settings: allowlist with an escape', { path: shot, contentType: 'image/png' });
});
