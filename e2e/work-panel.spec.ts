import type { APIRequestContext, Page } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer } from './fake-model/index.js';
import { shoot } from './screens.js';

interface Host {
  origin: string;
  token: string;
}

/** A new session from the page; its id from the address. */
async function newSession(page: Page): Promise<string> {
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  return /#\/s\/([a-z0-9]+)$/.exec(page.url())![1]!;
}

/** Adds a work item to the session's list through REST, as a script would. */
async function createItem(
  request: APIRequestContext,
  host: Host,
  listId: string,
  body: Record<string, unknown>,
): Promise<number> {
  const res = await request.post(`${host.origin}/api/work-lists/${listId}/items`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: body,
  });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { item: { id: number } }).item.id;
}

test('the Work tab: a dependency-ordered board, blocked items under their blockers, unblocked live', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const auth = { Authorization: `Bearer ${host.token}` };
  await page.goto(host.url);
  const sessionId = await newSession(page);

  // The panel opens on Tasks (Ctrl+B); its Work tab shows the session's list, empty so far, and says what it is for.
  await page.keyboard.press('Control+b');
  const panel = page.getByTestId('tasks-panel');
  await expect(panel.getByRole('heading', { name: 'Tasks' })).toBeFocused();
  await panel.getByTestId('panel-tab-work').click();
  await expect(page).toHaveURL(new RegExp(`#/s/${sessionId}/work$`));
  await expect(panel.getByRole('heading', { name: 'Work' })).toBeFocused();
  await expect(panel.getByTestId('work-empty')).toContainText('task_create');
  await expect(panel.getByTestId('work-tally')).toHaveCount(0);
  await shoot(page, testInfo, 'work-empty');

  // Items made through REST arrive live: 2 waits for 1; 4 waits for 2 and 3.
  expect(await createItem(page.request, host, sessionId, { subject: 'Write the parser', owner: 'alice' })).toBe(1);
  expect(await createItem(page.request, host, sessionId, { subject: 'Test the parser', blocked_by: [1] })).toBe(2);
  expect(await createItem(page.request, host, sessionId, { subject: 'Document the grammar' })).toBe(3);
  expect(await createItem(page.request, host, sessionId, { subject: 'Release 0.2', blocked_by: [2, 3] })).toBe(4);

  const rows = panel.getByTestId('work-item');
  const row = (id: number) => panel.locator(`[data-testid="work-item"][data-item-id="${id}"]`);
  await expect(rows).toHaveCount(4);
  // Blockers before what they block; each blocked item right under the blocker it hangs from.
  await expect(rows.nth(0)).toHaveAttribute('data-item-id', '1');
  await expect(rows.nth(1)).toHaveAttribute('data-item-id', '2');
  await expect(rows.nth(2)).toHaveAttribute('data-item-id', '3');
  await expect(rows.nth(3)).toHaveAttribute('data-item-id', '4');
  await expect(row(1)).toHaveAttribute('data-depth', '0');
  await expect(row(2)).toHaveAttribute('data-depth', '1');
  await expect(row(2)).toHaveAttribute('data-parent-id', '1');
  await expect(row(2).getByTestId('work-item-blocked')).toHaveText('blocked by #1');
  await expect(row(4).getByTestId('work-item-blocked')).toHaveText('blocked by #2, #3');
  await expect(row(1).getByTestId('work-item-owner')).toHaveText('owner alice');
  await expect(row(1).getByTestId('work-item-blocked')).toHaveCount(0);
  await expect(panel.getByTestId('work-tally')).toHaveText('0 of 4 completed');
  await shoot(page, testInfo, 'work-panel');

  // The blocker completes (another client, through REST): 2 is no longer blocked, through the event alone.
  const patched = await page.request.patch(`${host.origin}/api/work-lists/${sessionId}/items/1`, {
    headers: auth,
    data: { status: 'completed' },
  });
  expect(patched.status(), await patched.text()).toBe(200);
  await expect(row(1)).toHaveAttribute('data-status', 'completed');
  await expect(row(2).getByTestId('work-item-blocked')).toHaveCount(0);
  await expect(row(2)).toHaveAttribute('data-depth', '0');
  await expect(row(2)).not.toHaveAttribute('data-blocked', 'true');
  await expect(row(4).getByTestId('work-item-blocked')).toHaveText('blocked by #2, #3');
  await expect(panel.getByTestId('work-tally')).toHaveText('1 of 4 completed');

  // The status menu of a row changes the item.
  await row(2).getByTestId('work-item-status').selectOption('in_progress');
  await expect(row(2)).toHaveAttribute('data-status', 'in_progress');
  await expect(panel.getByTestId('work-tally')).toHaveText('1 of 4 completed · 1 in progress');
  const item = await page.request.get(`${host.origin}/api/work-lists/${sessionId}/items/2`, { headers: auth });
  expect(((await item.json()) as { status: string }).status).toBe('in_progress');
  await shoot(page, testInfo, 'work-panel-unblocked');

  // The tab is in the address: a reload comes back to it. Esc closes the panel.
  await page.reload();
  await expect(row(2)).toHaveAttribute('data-status', 'in_progress');
  await panel.getByTestId('panel-tab-tasks').click();
  await expect(panel.getByRole('heading', { name: 'Tasks' })).toBeFocused();
  await expect(page).toHaveURL(new RegExp(`#/s/${sessionId}/tasks$`));
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
});

test('a task started for a work item fails: the item shows why it is blocked, and the task', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const model = await startOpenAiCompatibleServer();
  try {
    const saved = await page.request.put(`${host.origin}/api/settings`, {
      headers: { Authorization: `Bearer ${host.token}` },
      data: { provider: { kind: 'openai-compatible', base_url: model.baseUrl, model: 'fake', api_key: 'k' } },
    });
    expect(saved.status()).toBe(200);
    await page.goto(host.url);
    const sessionId = await newSession(page);
    await createItem(page.request, host, sessionId, { subject: 'Build the docs' });
    await createItem(page.request, host, sessionId, { subject: 'Publish the docs', blocked_by: [1] });
    // `ls` of a missing folder fails with exit code 2.
    model.enqueue(
      {
        toolCalls: [
          {
            name: 'run_command',
            args: { command: 'ls /no-such-folder-for-drover', background: true, work_item_id: 1 },
          },
        ],
      },
      { text: 'Started the build for item 1.' },
      { text: 'The build failed; item 1 is blocked.' },
      { text: 'Noted.' },
    );
    const composer = page.getByTestId('composer-input');
    await composer.fill('build the docs');
    await composer.press('Enter');
    // Nothing is allowed yet: the person allows it once, from the keyboard.
    const request = page.getByTestId('permission-modal');
    await expect(request).toBeVisible({ timeout: 20_000 });
    await page.keyboard.press('F6');
    await expect(request).toHaveAttribute('data-armed', 'true');
    await page.keyboard.press('Alt+a');
    await expect(request).toBeHidden();
    await expect(page.getByText('Started the build for item 1.')).toBeVisible({ timeout: 20_000 });

    await page.keyboard.press('Control+b');
    const panel = page.getByTestId('tasks-panel');
    await panel.getByTestId('panel-tab-work').click();
    const row = (id: number) => panel.locator(`[data-testid="work-item"][data-item-id="${id}"]`);
    await expect(row(1).getByTestId('work-item-reason')).toContainText('failed, exit code 2', { timeout: 20_000 });
    const task = row(1).getByTestId('work-item-task');
    await expect(task).toHaveCount(1);
    await expect(task.getByRole('img')).toHaveAccessibleName('failed');
    await expect(row(2).getByTestId('work-item-blocked')).toHaveText('blocked by #1');
    await shoot(page, testInfo, 'work-panel-blocked');

    // The task's chip opens it in the Tasks tab.
    await task.click();
    await expect(page.getByTestId('task-view')).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`#/s/${sessionId}/tasks/bg_\\d+$`));
  } finally {
    await model.close();
  }
});
