import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

test('the gate: Always allow <program> names its entry, covers other arguments, not a pipe; Reject reaches the model', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.request.put(`${host.origin}/api/settings`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: { provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' } },
  });
  model.enqueue(
    { toolCalls: [{ name: 'run_command', args: { command: 'echo first call' } }] },
    { toolCalls: [{ name: 'run_command', args: { command: 'echo second call with other arguments' } }] },
    { toolCalls: [{ name: 'run_command', args: { command: 'echo third | cat' } }] },
    { text: 'Understood, I will not run it again.' },
  );
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await page.getByTestId('composer-input').fill('say things');
  await page.getByTestId('composer-input').press('Enter');

  const modal = page.getByTestId('permission-modal');
  await expect(modal).toBeVisible();
  // Elsewhere (another window on the same host), the session says it needs an answer.
  const other = await page.context().newPage();
  await other.goto(host.url);
  await expect(other.getByTestId('session-waiting')).toHaveText('Needs your answer');
  await expect(modal.getByTestId('permission-command')).toHaveText('echo first call');
  await expect(modal.getByTestId('permission-allow-program')).toContainText('Always allow echo');
  const shot = testInfo.outputPath('permission-modal.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('permission modal', { path: shot, contentType: 'image/png' });
  await modal.getByTestId('permission-allow-program').click();

  // The second call, other arguments, runs without asking; the piped third asks again, without the program choice.
  await expect(modal.getByTestId('permission-command')).toHaveText('echo third | cat', { timeout: 15_000 });
  await expect(modal.getByTestId('permission-allow-program')).toHaveCount(0);
  expect(model.requests).toHaveLength(3);
  expect(model.requests[2]!.transcript).toContain('second call with other arguments');
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = testInfo.outputPath('permission-modal-dark.png');
  await page.screenshot({ path: dark });
  await testInfo.attach('permission modal (dark)', { path: dark, contentType: 'image/png' });
  await modal.getByTestId('permission-reject').click();
  await expect(modal).toBeHidden();

  await model.waitForRequests(4, 15_000);
  // Nothing waits any more, and the other window says so without a reload.
  await expect(other.getByTestId('session-waiting')).toHaveCount(0);
  await other.close();
  expect(model.requests[3]!.transcript).toContain(
    'Not run: the person rejected `echo third | cat`. Do not run it again',
  );
  await expect(page.getByTestId('grant-item')).toHaveAttribute('data-value', 'echo');
  // The rejected call's row says it did not run.
  await expect(page.getByTestId('tool-row').last()).toHaveAttribute('data-status', 'rejected');
});
