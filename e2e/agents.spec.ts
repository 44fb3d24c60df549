import { test, expect } from './fixtures.js';
import {
  enqueueRouted,
  parentRequests,
  startOpenAiCompatibleServer,
  type FakeModelServer,
} from './fake-model/index.js';
import { shoot } from './screens.js';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

const agentCall = (marker: string, description: string, extra: Record<string, unknown> = {}) => ({
  name: 'agent',
  args: { description, prompt: `${marker}: ${description}`, run_in_background: true, ...extra },
});

test('two background agents: their transcripts stream into the task view, one is killed, the other wakes the session', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.request.put(`${host.origin}/api/settings`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: { provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' } },
  });
  enqueueRouted(model, {
    parent: [
      {
        toolCalls: [
          agentCall('TASK-A', 'Watch the slow check', { notify_on_finish: false }),
          agentCall('TASK-B', 'Survey the test folder'),
        ],
      },
      { text: 'Two agents are working.' },
      {
        toolCalls: [{ name: 'agent_output', args: { task_id: 'agt_2' } }],
      },
      { text: 'The survey found 12 test files.' },
    ],
    // A starts a long sleep: it stays running until it is killed.
    'TASK-A': [
      {
        text: 'Starting the long check.',
        toolCalls: [{ name: 'sleep', args: { seconds: 120, reason: 'waiting for the check' } }],
      },
    ],
    // B runs a command the person is asked about, then answers a little later.
    'TASK-B': [
      {
        text: 'Looking at the folder.',
        toolCalls: [{ name: 'run_command', args: { command: 'touch agent-was-here && ls' } }],
      },
      { text: 'B-RESULT: 12 test files, all named *.test.ts.', delayMs: 2500 },
    ],
  });
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await page.getByTestId('composer-input').fill('Fan the work out to two agents');
  await page.getByTestId('composer-input').press('Enter');
  await expect(page.getByText('Two agents are working.')).toBeVisible({ timeout: 15_000 });

  // B's command asks the person, in B's name.
  const modal = page.getByTestId('permission-modal');
  await expect(modal).toBeVisible({ timeout: 15_000 });
  await expect(modal.getByTestId('permission-agent')).toHaveText('Asked by agent agt_2 (general-purpose)');
  await shoot(page, testInfo, 'agent-permission');
  await page.getByTestId('permission-allow').click();
  await expect(modal).toBeHidden();

  // The panel: both counted as agents.
  await expect(page.getByTestId('tasks-chip')).toHaveText('2 agents');
  await page.getByTestId('tasks-chip').click();
  const panel = page.getByTestId('tasks-panel');
  const card = (id: string) => panel.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
  // Agents alone need no group headings; each card says it is an agent.
  await expect(card('agt_1')).toHaveAttribute('data-kind', 'agent');
  await expect(card('agt_1').getByTestId('agent-card-name')).toHaveText('general-purpose');

  // A's transcript: its message, then the sleep it is in.
  await card('agt_1')
    .getByRole('button', { name: /^Open agent agt_1/ })
    .click();
  const view = page.getByTestId('agent-view');
  await expect(view.getByTestId('agent-prompt')).toContainText('Watch the slow check');
  await expect(view.getByTestId('agent-message').first()).toHaveText('Starting the long check.');
  await expect(view.getByTestId('agent-tool-row')).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('task-view').getByTestId('agent-status')).toHaveAttribute('data-status', 'running');
  await shoot(page, testInfo, 'agent-view-running');

  // Killed from its view: it says so, and its row in the panel too.
  await page.getByTestId('task-view-stop').click();
  await expect(page.getByTestId('task-view').getByTestId('agent-status')).toHaveAttribute('data-status', 'killed', {
    timeout: 10_000,
  });
  await expect(view.getByTestId('agent-error')).toContainText('killed');

  // B ends on its own: the session is woken, reads its result with agent_output, and answers.
  await expect(page.getByText('The survey found 12 test files.')).toBeVisible({ timeout: 20_000 });
  const requests = parentRequests(model.requests);
  expect(requests[2]!.transcript).toMatch(/agt_2 \(agent general-purpose: Survey the test folder\): completed/);
  expect(requests.at(-1)!.transcript).toMatch(/source="agt_2">\s*B-RESULT: 12 test files/);

  // Both have ended: they are under Finished, in agent words.
  await page.getByTestId('task-view-back').click();
  await panel.getByTestId('finished-toggle').click();
  const finished = (id: string) => panel.locator(`[data-testid="finished-row"][data-task-id="${id}"]`);
  await expect(finished('agt_1').getByTestId('finished-row-outcome')).toHaveText(/killed/);
  await expect(finished('agt_2').getByTestId('finished-row-outcome')).toHaveText(/completed/);
  await shoot(page, testInfo, 'agents-panel');
  await finished('agt_2').click();
  await expect(page.getByTestId('task-view').getByTestId('agent-status')).toHaveAttribute('data-status', 'completed');
  await expect(view.getByTestId('agent-result')).toContainText('B-RESULT: 12 test files');
  await expect(view.getByTestId('agent-tool-row')).toHaveAttribute('data-status', 'done');
  await shoot(page, testInfo, 'agent-view-completed');
});
