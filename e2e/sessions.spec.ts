import { test, expect } from './fixtures.js';
import { startHost } from './host.js';

test('two sessions survive a reload and the route is restored', async ({ page, host, pageProblems }, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');

  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const firstId = new URL(page.url()).hash.split('/')[2]!;
  await page.getByTestId('composer-input').fill('Run the integration suite');
  await page.getByTestId('composer-send').click();
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveText(/Run the integration suite/);
  await expect(page.getByTestId('session-title')).toHaveText('Run the integration suite');

  await page.getByTestId('new-session').click();
  await expect(page).not.toHaveURL(new RegExp(`${firstId}$`));
  const secondId = new URL(page.url()).hash.split('/')[2]!;
  await page.getByTestId('composer-input').fill('Watch the dev server logs');
  await page.getByTestId('composer-input').press('Enter');
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveText(/Watch the dev server logs/);
  await expect(page.getByTestId('session-item')).toHaveCount(2);

  // Back to the first one, then reload: the route and both sessions come back.
  await page.locator(`[data-testid="session-item"][data-session-id="${firstId}"]`).click();
  await expect(page).toHaveURL(new RegExp(`#/s/${firstId}$`));
  await page.reload();
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  await expect(page.getByTestId('session-item')).toHaveCount(2);
  await expect(page).toHaveURL(new RegExp(`#/s/${firstId}$`));
  await expect(page.getByTestId('session-title')).toHaveText('Run the integration suite');
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveText(/Run the integration suite/);
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${secondId}"]`)).toContainText(
    'Watch the dev server logs',
  );

  const shot = testInfo.outputPath('sessions.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('window', { path: shot, contentType: 'image/png' });
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = testInfo.outputPath('sessions-dark.png');
  await page.screenshot({ path: dark });
  await testInfo.attach('window (dark)', { path: dark, contentType: 'image/png' });

  // The same data is visible to a script through REST.
  const res = await page.request.get(`${host.origin}/api/sessions`, {
    headers: { Authorization: `Bearer ${host.token}` },
  });
  expect(res.status()).toBe(200);
  expect(((await res.json()) as { id: string }[]).map((s) => s.id).sort()).toEqual([firstId, secondId].sort());
});

test('an unknown session in the route says so and offers a way back', async ({ page, host, pageProblems }) => {
  void pageProblems;
  await page.goto(`${host.url}#/s/doesnotexist`);
  await expect(page.getByTestId('not-found')).toBeVisible();
});

test('the page shows when the host goes away and recovers by itself when it returns', async ({
  page,
  host,
  pageProblems,
}) => {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  const port = Number(new URL(host.url).port);
  await host.stop();
  await expect(page.getByTestId('connection-state')).not.toHaveAttribute('data-state', 'open');

  // Same port, data and token: the page reconnects on its own and shows what was made meanwhile.
  const again = await startHost({ dataDir: host.dataDir, port, token: host.token });
  try {
    const res = await page.request.post(`${again.origin}/api/sessions`, {
      headers: { Authorization: `Bearer ${again.token}` },
      data: { title: 'Made while the page was away' },
    });
    expect(res.status()).toBe(201);
    await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open', { timeout: 15_000 });
    await expect(page.getByTestId('session-list')).toContainText('Made while the page was away');
  } finally {
    await again.stop();
  }
  // The browser logs the refused connections while the host is down; those are expected here.
  pageProblems.splice(
    0,
    pageProblems.length,
    ...pageProblems.filter((text) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(text)),
  );
});

test('the host stops cleanly on SIGTERM', async ({ host }) => {
  expect(await host.stop()).toBe(0);
  expect(host.output()).toContain('SIGTERM received');
});
