import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';
import { shoot } from './screens.js';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

test('plan mode: the switch and its key, the header chip and the hint; a read-only command runs, a granted one asks with allow once or reject only', async ({
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
      command_allowlist: ['touch'],
    },
  });
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const sessionId = /#\/s\/([a-z0-9]+)$/.exec(page.url())![1]!;
  const composer = page.getByTestId('composer-input');
  const toggle = page.getByTestId('plan-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByTestId('session-plan-mode')).toHaveCount(0);

  // The key, from the composer: on, said in the header, the hint and the transcript; the focus stays put.
  await composer.focus();
  await page.keyboard.press('Control+Shift+P');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('session-plan-mode')).toHaveText('Plan mode');
  await expect(page.getByTestId('composer-plan')).toContainText('any command that is not read-only asks you first');
  await expect(page.getByTestId('system-note').last()).toContainText('Plan mode is on');
  await expect(composer).toBeFocused();
  // Stored with the session: a reload and the REST answer agree.
  await page.reload();
  await expect(page.getByTestId('plan-toggle')).toHaveAttribute('aria-pressed', 'true');
  const stored = await page.request.get(`${host.origin}/api/sessions/${sessionId}`, { headers: auth });
  expect((await stored.json()).mode).toBe('plan');
  await shoot(page, testInfo, 'plan-mode');

  // The model reads (runs without asking), then wants to write: it asks although the allowlist holds `touch`.
  model.enqueue(
    { toolCalls: [{ name: 'run_command', args: { command: 'ls' } }] },
    { toolCalls: [{ name: 'run_command', args: { command: 'touch plan.txt' } }] },
    { text: 'The plan is ready: switch to agent mode to carry it out.' },
  );
  await composer.fill('Plan the change');
  await composer.press('Enter');
  const modal = page.getByTestId('permission-modal');
  await expect(modal).toBeVisible();
  await expect(modal.getByTestId('permission-command')).toHaveText('touch plan.txt');
  await expect(modal.getByTestId('permission-plan-mode')).toBeVisible();
  await expect(modal.getByTestId('permission-reason')).toContainText('plan mode: only read-only commands');
  await expect(modal.getByTestId('permission-allow-always')).toHaveCount(0);
  await expect(modal.getByTestId('permission-allow-program')).toHaveCount(0);
  expect(model.requests).toHaveLength(2);
  await shoot(page, testInfo, 'plan-mode-request');
  await modal.getByTestId('permission-reject').click();
  await model.waitForRequests(3, 15_000);
  await expect(page.getByTestId('tool-row').last()).toHaveAttribute('data-status', 'rejected');

  // The switch, by pointer: back to agent mode.
  await page.getByTestId('plan-toggle').click();
  await expect(page.getByTestId('plan-toggle')).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByTestId('session-plan-mode')).toHaveCount(0);
  await expect(page.getByTestId('composer-plan')).toHaveCount(0);
  await expect(page.getByTestId('system-note').last()).toContainText('Plan mode is off');
});
