import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

test('a model connected in Settings backgrounds a task, is woken when it ends, and reload restores it all', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('open-settings').click();
  await page.getByTestId('settings-kind').selectOption('openai-compatible');
  await page.getByTestId('settings-base-url').fill(model.baseUrl);
  await page.getByTestId('settings-model').fill('fake-model');
  await page.getByTestId('settings-api-key').fill('sk-e2e-key');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-saved')).toBeVisible();
  const shotSettings = testInfo.outputPath('settings.png');
  await page.screenshot({ path: shotSettings });
  await testInfo.attach('settings', { path: shotSettings, contentType: 'image/png' });

  model.enqueue(
    {
      toolCalls: [
        {
          name: 'run_command',
          args: {
            command: 'for i in 1 2 3; do echo "step $i"; sleep 0.4; done',
            background: true,
            notify_on_finish: true,
            expected_seconds: 5,
          },
        },
      ],
      text: 'Starting the checks in the background.',
    },
    { text: 'They are running; I will report when they finish.' },
    { toolCalls: [{ name: 'read_task_output', args: { task_id: 'bg_1' } }] },
    { text: 'All three steps ran and the task succeeded.' },
  );
  await page.getByTestId('new-session').click();
  await page.getByTestId('composer-input').fill('Run the checks');
  await page.getByTestId('composer-input').press('Enter');
  // A loop with ; and $ is no plain invocation: the person is asked, and allows it once.
  await expect(page.getByTestId('permission-modal')).toBeVisible();
  await page.getByTestId('permission-allow').click();
  await expect(page.getByTestId('permission-modal')).toBeHidden();

  const toolRow = page.locator('[data-testid="tool-row"][data-task-id="bg_1"]').first();
  await expect(toolRow.getByTestId('tool-name')).toContainText('run_command');
  await expect(toolRow).toHaveAttribute('data-status', 'running');
  await expect(toolRow).toHaveAttribute('data-status', 'succeeded', { timeout: 15_000 });
  await expect(page.getByTestId('automated-label')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('assistant-text').last()).toHaveText('All three steps ran and the task succeeded.', {
    timeout: 15_000,
  });
  expect(model.requests[0]!.headers.authorization).toContain('sk-e2e-key');
  expect(model.requests[3]!.transcript).toMatch(/<untrusted-output nonce="[0-9a-f]{20}" source="bg_1">/);

  const count = await page.getByTestId('message').count();
  await page.reload();
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  await expect(page.getByTestId('message')).toHaveCount(count);
  await expect(page.getByTestId('assistant-text').last()).toHaveText('All three steps ran and the task succeeded.');
  await expect(page.locator('[data-testid="tool-row"][data-task-id="bg_1"]').first()).toHaveAttribute(
    'data-status',
    'succeeded',
  );
  const shot = testInfo.outputPath('agent.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('agent transcript', { path: shot, contentType: 'image/png' });
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = testInfo.outputPath('agent-dark.png');
  await page.screenshot({ path: dark, fullPage: true });
  await testInfo.attach('agent transcript (dark)', { path: dark, contentType: 'image/png' });
});

test('Stop cancels a turn and leaves its background task running', async ({ page, host, pageProblems }) => {
  void pageProblems;
  const auth = { Authorization: `Bearer ${host.token}` };
  await page.request.put(`${host.origin}/api/settings`, {
    headers: auth,
    // The operator's allowlist covers `sleep 60`, so no modal interrupts this test.
    data: {
      provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' },
      commandAllowlist: ['sleep'],
    },
  });
  model.enqueue(
    { toolCalls: [{ name: 'run_command', args: { command: 'sleep 60', background: true } }] },
    { text: 'never shown', delayMs: 30_000 },
  );
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await page.getByTestId('composer-input').fill('start a server');
  await page.getByTestId('composer-input').press('Enter');
  const toolRow = page.locator('[data-testid="tool-row"][data-task-id="bg_1"]').first();
  await expect(toolRow).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('turn-stop')).toBeVisible();
  await page.getByTestId('turn-stop').click();
  await expect(page.getByTestId('turn-stop')).toBeHidden();
  await expect(toolRow).toHaveAttribute('data-status', 'running');
  const sessionId = new URL(page.url()).hash.split('/')[2]!;
  const task = (await (
    await page.request.get(`${host.origin}/api/sessions/${sessionId}/background-tasks/bg_1`, { headers: auth })
  ).json()) as {
    task: { status: string };
  };
  expect(task.task.status).toBe('running');
});
