import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';
import { startHost } from './host.js';
import { shoot } from './screens.js';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

test('the slash menu and /loop, the Schedules panel, the resume guard after a restart, and Esc', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  const auth = { Authorization: `Bearer ${host.token}` };
  await page.request.put(`${host.origin}/api/settings`, {
    headers: auth,
    data: { provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' } },
  });
  model.enqueue({ text: 'The deploy is green.' });
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const sessionId = /#\/s\/([a-z0-9]+)$/.exec(page.url())![1]!;
  const composer = page.getByTestId('composer-input');

  // "/" opens the menu; Tab takes /loop into the draft.
  await composer.fill('/');
  const menu = page.getByTestId('slash-menu');
  await expect(menu).toBeVisible();
  await expect(menu.getByTestId('slash-item')).toHaveText([/\/loop/]);
  await expect(composer).toHaveAttribute('aria-activedescendant', /-slash-0$/);
  await shoot(page, testInfo, 'slash-menu');
  await composer.press('Tab');
  await expect(composer).toHaveValue('/loop ');
  await expect(menu).toBeHidden();
  await composer.pressSequentially('5m check the deploy');
  await expect(page.getByTestId('composer-loop')).toBeVisible();
  await expect(page.getByTestId('composer-send')).toHaveText('Start loop');
  await composer.press('Enter');

  // The transcript says what started; the first pass runs at once, marked automated, its task in the person's words.
  await expect(page.getByTestId('system-note').first()).toContainText(
    /Loop \w{8} runs "check the deploy" every 5 minutes/,
  );
  const pass = page.locator('[data-automated="true"][data-schedule]');
  await expect(pass).toHaveCount(1);
  await expect(pass.getByTestId('automated-label')).toHaveText(/Automated · loop \w{8}, every 5 minutes/);
  await expect(page.getByText('The deploy is green.')).toBeVisible();
  expect(model.requests[0]!.transcript).toMatch(/untrusted-output nonce="[^"]+" source="schedule_\w{8}"/);

  // The header counts the pass against the session's budget for unattended turns.
  await expect(page.getByTestId('budget-left')).toContainText('Unattended: 49 turns');
  await expect(page.getByTestId('budget')).toHaveAttribute('data-spent', 'false');

  // The Schedules tab: the loop with its next run; pause and resume it.
  await page.keyboard.press('Control+B');
  await page.getByTestId('panel-tab-schedules').click();
  const row = page.getByTestId('schedule-row');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-kind', 'loop');
  await expect(row.getByTestId('schedule-next')).toContainText(/next .*\(in \d+ (s|min)\)/);
  await expect(row.getByTestId('schedule-last')).toContainText('last ran');
  await shoot(page, testInfo, 'schedules-panel');
  await row.getByTestId('schedule-pause').click();
  await expect(row.getByTestId('schedule-paused')).toBeVisible();
  await row.getByTestId('schedule-resume').click();
  await expect(row.getByTestId('schedule-next')).toBeVisible();

  // A restart: the loop is held until the person answers the banner.
  await host.stop();
  const port = Number(new URL(host.url).port);
  const again = await startHost({ dataDir: host.dataDir, port, token: host.token });
  try {
    await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open', { timeout: 15_000 });
    const guard = page.getByTestId('resume-guard').first();
    await expect(guard).toBeVisible({ timeout: 15_000 });
    await expect(guard.getByTestId('resume-guard-summary')).toHaveText('1 loop will resume');
    const held = await page.request.get(`${again.origin}/api/schedules/held`, { headers: auth });
    expect((await held.json()).held).toEqual([expect.objectContaining({ session_id: sessionId })]);
    await shoot(page, testInfo, 'resume-guard');
    await guard.getByTestId('resume-guard-resume').click();
    await expect(page.getByTestId('resume-guard')).toHaveCount(0);

    // Esc in the composer stops the loop; the panel empties.
    await composer.focus();
    await composer.press('Escape');
    await expect(page.getByTestId('system-note').last()).toContainText(/Stopped the loop \w{8}\./);
    await expect(page.getByTestId('schedules-empty')).toBeVisible();
  } finally {
    await again.stop();
  }
  pageProblems.splice(
    0,
    pageProblems.length,
    ...pageProblems.filter((text) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(text)),
  );
});
