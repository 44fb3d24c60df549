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

  // The first pass is the person's own (they typed /loop): the budget for unattended turns is whole.
  await expect(page.getByTestId('budget-left')).toContainText('Unattended: 50 turns');
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

test('the budget for unattended turns: spent in the header, raised in Settings, what waited runs', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const auth = { Authorization: `Bearer ${host.token}` };
  await page.request.put(`${host.origin}/api/settings`, {
    headers: auth,
    data: {
      provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' },
      budget: { turns: 1 },
      command_allowlist: ['echo first', 'echo second'],
    },
  });
  const started = (command: string) => ({
    toolCalls: [{ name: 'run_command', args: { command, background: true, notify_on_finish: true } }],
  });
  model.enqueue(started('echo first'), { text: 'Started the first.' }, { text: 'The first ended.' });
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const sessionUrl = page.url();
  const composer = page.getByTestId('composer-input');
  await composer.fill('run the first');
  await composer.press('Enter');

  // The wake-up for the first task spends the one turn: the header says so and offers Resume.
  await expect(page.getByText('The first ended.')).toBeVisible({ timeout: 15_000 });
  const chip = page.getByTestId('budget');
  await expect(chip).toHaveAttribute('data-spent', 'true');
  await expect(page.getByTestId('budget-left')).toHaveText('Unattended budget spent');
  await expect(page.getByTestId('budget-resume')).toHaveText('Resume');
  await expect(page.getByTestId('system-note').last()).toContainText('budget for unattended turns is spent');

  // A second task ends while it is spent: no turn starts.
  model.enqueue(started('echo second'), { text: 'Started the second.' }, { text: 'The second ended too.' });
  await composer.fill('run the second');
  await composer.press('Enter');
  await expect(page.getByText('Started the second.')).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('[data-testid="tool-row"][data-task-id="bg_2"]').first()).toHaveAttribute(
    'data-status',
    'succeeded',
    { timeout: 15_000 },
  );
  await page.waitForTimeout(1500);
  await expect(page.getByText('The second ended too.')).toHaveCount(0);
  await shoot(page, testInfo, 'budget-spent');

  // Raised in Settings (Unattended work): the budget opens and the wake-up that waited runs.
  await page.getByTestId('open-settings').click();
  const section = page.getByTestId('settings-unattended');
  const turns = section.locator('[data-testid="tunable"][data-id="budget.turns"]');
  await expect(turns.getByTestId('tunable-value')).toHaveText('1');
  await expect(turns.getByTestId('tunable-source')).toHaveText('settings.json');
  await expect(
    section.locator('[data-testid="tunable"][data-id="sleep.maxSeconds"]').getByTestId('tunable-value'),
  ).toHaveText('10 min (600 s)');
  await turns.getByTestId('tunable-change').click();
  await turns.getByTestId('tunable-input').fill('4');
  await turns.getByTestId('tunable-input').press('Enter');
  await expect(turns.getByTestId('tunable-value')).toHaveText('4');
  await section.scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'settings-unattended');

  await page.goto(sessionUrl);
  await expect(page.getByText('The second ended too.')).toBeVisible({ timeout: 15_000 });
  await expect(chip).toHaveAttribute('data-spent', 'false');
  await expect(page.getByTestId('budget-left')).toContainText('Unattended: 2 turns');
  expect(model.requests.at(-1)!.transcript).toMatch(/bg_2 \(echo second\): succeeded/);
});
