import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';

let model: FakeModelServer;
test.beforeAll(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterAll(async () => {
  await model.close();
});

async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Enter');
}

test('Clear in the tasks panel never edits the transcript; the person never reads the model’s fenced text', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.request.put(`${host.origin}/api/settings`, {
    headers: { Authorization: `Bearer ${host.token}` },
    // The allowlist covers the model's command, so no permission request interrupts this test.
    data: {
      provider: { kind: 'openai-compatible', base_url: model.baseUrl, model: 'fake', api_key: 'k' },
      command_allowlist: ['echo'],
    },
  });
  model.enqueue({ toolCalls: [{ name: 'run_command', args: { command: 'echo model-said-hi' } }] }, { text: 'Done.' });
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  const rows = page.getByTestId('tool-row');

  await send(page, "!printf 'fg-out\\n'; exit 3");
  await expect(rows.nth(0)).toHaveAttribute('data-status', 'failed');
  await send(page, '&echo bg-out');
  await expect(rows.nth(1)).toHaveAttribute('data-status', 'succeeded');
  await send(page, 'say hi from a shell');
  await expect(rows.nth(2)).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('assistant-text').filter({ hasText: 'Done.' })).toBeVisible();
  // The model read its output through a fence; the person reads the output itself.
  expect(model.requests[1]!.transcript).toMatch(/<untrusted-output nonce="[0-9a-f]{20}"/);
  await expect(rows.nth(2).getByTestId('tool-output')).toContainText('model-said-hi');
  await expect(page.getByTestId('transcript')).not.toContainText('untrusted-output');

  await page.getByTestId('tasks-chip').click();
  await expect(page.getByTestId('finished-toggle')).toContainText('3');
  await page.getByTestId('tasks-clear').click();
  // Clear is undoable for a few seconds; once it is done, the rows show what they kept, live.
  await expect(page.getByTestId('tasks-cleared')).toBeVisible();
  await expect(page.getByTestId('tasks-cleared')).toBeHidden({ timeout: 20_000 });
  await expect(rows.nth(0).getByTestId('tool-log-removed')).toBeVisible();
  await page.reload();

  const expected = [
    { status: 'failed', command: "printf 'fg-out\\n'; exit 3", output: 'fg-out', exit: 'exit 3' },
    { status: 'succeeded', command: 'echo bg-out', output: 'bg-out', exit: 'exit 0' },
    { status: 'succeeded', command: 'echo model-said-hi', output: 'model-said-hi', exit: 'exit 0' },
  ];
  await expect(rows).toHaveCount(3);
  for (const [index, want] of expected.entries()) {
    const row = rows.nth(index);
    await expect(row).toHaveAttribute('data-status', want.status);
    await expect(row.getByTestId('tool-command')).toHaveText(want.command);
    await expect(row.getByTestId('tool-status')).toContainText(want.status);
    await expect(row.getByTestId('tool-exit')).toHaveText(want.exit);
    await expect(row.getByTestId('tool-elapsed')).toBeVisible();
    await expect(row.getByTestId('tool-output')).toContainText(want.output);
    await expect(row.getByTestId('tool-log-removed')).toHaveText('log removed');
    await expect(row.getByTestId('tool-open-in-tasks')).toHaveCount(0);
  }
  await expect(page.getByTestId('transcript')).not.toContainText('cleared');
  await expect(page.getByTestId('transcript')).not.toContainText('untrusted-output');
  await shoot(page, testInfo, 'transcript-after-clear');
});

test('"Background" on a running ! command moves it to the tasks panel at once', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  // It ends when the test creates a file, never on a timer.
  await send(page, '!while [ ! -e go ]; do sleep 0.05; done; echo released');
  const row = page.getByTestId('tool-row').first();
  await expect(row).toHaveAttribute('data-status', 'running');
  const background = row.getByTestId('tool-background');
  await expect(background).toBeVisible();
  await shoot(page, testInfo, 'foreground-with-background-action');

  await background.click();
  await expect(row.getByTestId('tool-notice')).toHaveText(
    /^Moved to the background at your request after .+: it keeps running as bg_1 \(hard timeout 1 h\)\.$/,
  );
  await expect(row.getByTestId('tool-adopted')).toBeVisible();
  await expect(background).toBeHidden();
  await expect(row).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('tasks-chip')).toContainText('1 running task');
  await page.getByTestId('tasks-chip').click();
  const card = page.getByTestId('tasks-panel').locator('[data-testid="task-card"][data-task-id="bg_1"]');
  await expect(card).toBeVisible();
  await shoot(page, testInfo, 'moved-to-background');

  writeFileSync(join(host.dataDir, 'go'), '');
  await expect(row).toHaveAttribute('data-status', 'succeeded');
  await expect(card).toBeHidden();
  await expect(row.getByTestId('tool-output')).toContainText('released');
});
