import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';

/** A new session from the page; its id from the address. */
async function newSession(page: Page): Promise<string> {
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  return /#\/s\/([a-z0-9]+)$/.exec(page.url())![1]!;
}

test('the TODOS strip and its manager, by keyboard: select, complete, remove, plan done, close', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const auth = { Authorization: `Bearer ${host.token}` };
  await page.goto(host.url);
  const sessionId = await newSession(page);
  const composer = page.getByTestId('composer-input');
  await expect(composer).toBeFocused();
  const strip = page.getByTestId('todo-strip');
  await expect(strip).toHaveCount(0);

  // A four-step plan, written the way a script would (PUT replaces the list as the person): it shows live.
  const put = await page.request.put(`${host.origin}/api/sessions/${sessionId}/todos`, {
    headers: auth,
    data: {
      items: [
        { content: 'Read the failing test', status: 'completed', active_form: 'Reading the failing test' },
        { content: 'Fix the parser', status: 'in_progress', active_form: 'Fixing the parser' },
        { content: 'Add a regression test', status: 'pending', active_form: 'Adding a regression test' },
        { content: 'Run the whole suite', status: 'pending', active_form: 'Running the whole suite' },
      ],
    },
  });
  expect(put.status(), await put.text()).toBe(200);
  await expect(strip.getByTestId('todo-strip-label')).toHaveText('Fixing the parser');
  await expect(strip.getByTestId('todo-strip-count')).toHaveText('1/4');

  // It comes back on reload (read with the session, not only from events).
  await page.reload();
  await expect(strip.getByTestId('todo-strip-count')).toHaveText('1/4');

  // Enter on the line opens the whole list, each item with its status.
  const toggle = strip.getByTestId('todo-strip-toggle');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const stripItems = strip.getByTestId('todo-strip-item');
  await expect(stripItems).toHaveCount(4);
  await expect(stripItems).toHaveText([
    /Read the failing test/,
    /Fixing the parser/,
    /Add a regression test/,
    /Run the whole suite/,
  ]);
  await expect(stripItems.nth(1)).toHaveAttribute('data-status', 'in_progress');
  await shoot(page, testInfo, 'todo-strip-open');

  // The shortcut, from the composer: the manager opens with the focus on its list.
  await composer.focus();
  await page.keyboard.press('Control+Shift+X');
  const manager = page.getByTestId('todo-manager');
  await expect(manager).toBeVisible();
  const list = manager.getByTestId('todo-manager-list');
  await expect(list).toBeFocused();
  const items = manager.getByTestId('todo-manager-item');
  await expect(items).toHaveCount(4);
  await expect(items.nth(0)).toHaveAttribute('aria-selected', 'true');
  await shoot(page, testInfo, 'todo-manager');

  // ↓ then c: the in-progress step is completed; the strip counts it.
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('c');
  await expect(items.nth(1)).toHaveAttribute('data-status', 'completed');
  await expect(items.nth(1)).toContainText('you completed');
  await expect(strip.getByTestId('todo-strip-count')).toHaveText('2/4');
  await expect(strip.getByTestId('todo-strip-label')).toHaveText('Add a regression test');

  // ↓ then x: the next step is removed, and stays removed for the model.
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(2)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('x');
  await expect(items).toHaveCount(3);
  await expect(items).not.toContainText(['Add a regression test']);
  await expect(manager.getByTestId('todo-manager-removed')).toContainText('Add a regression test');
  await expect(strip.getByTestId('todo-strip-count')).toHaveText('2/3');
  // The selection moved to the step that took its place.
  await expect(items.nth(2)).toHaveAttribute('aria-selected', 'true');
  const after = await page.request.get(`${host.origin}/api/sessions/${sessionId}/todos`, { headers: auth });
  expect(after.status()).toBe(200);
  const body = (await after.json()) as { items: { content: string }[]; removed_by_person: string[] };
  expect(body.items.map((item) => item.content)).toEqual([
    'Read the failing test',
    'Fix the parser',
    'Run the whole suite',
  ]);
  expect(body.removed_by_person).toEqual(['Add a regression test']);
  await shoot(page, testInfo, 'todo-manager-edited');

  // a: the whole plan is done, which clears it; the strip goes.
  await page.keyboard.press('a');
  await expect(manager.getByTestId('todo-manager-empty')).toBeVisible();
  await expect(strip).toHaveCount(0);
  const cleared = await page.request.get(`${host.origin}/api/sessions/${sessionId}/todos`, { headers: auth });
  expect(((await cleared.json()) as { items: unknown[] }).items).toEqual([]);

  // Esc closes it; the focus goes back to the composer, and no letter reached it.
  await page.keyboard.press('Escape');
  await expect(manager).toBeHidden();
  await expect(composer).toBeFocused();
  await expect(composer).toHaveValue('');
});

test('the manager’s buttons do the same for a mouse, and the shortcut closes it again', async ({
  page,
  host,
  pageProblems,
}) => {
  void pageProblems;
  await page.goto(host.url);
  const sessionId = await newSession(page);
  const put = await page.request.put(`${host.origin}/api/sessions/${sessionId}/todos`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: {
      items: [
        { content: 'Sketch the schema', status: 'in_progress', active_form: 'Sketching the schema' },
        { content: 'Write the migration', status: 'pending', active_form: 'Writing the migration' },
      ],
    },
  });
  expect(put.status()).toBe(200);
  const strip = page.getByTestId('todo-strip');
  await expect(strip.getByTestId('todo-strip-count')).toHaveText('0/2');

  await strip.getByTestId('todo-manage').click();
  const manager = page.getByTestId('todo-manager');
  await expect(manager).toBeVisible();
  const items = manager.getByTestId('todo-manager-item');
  await items.nth(1).click();
  await expect(items.nth(1)).toHaveAttribute('aria-selected', 'true');
  await manager.getByTestId('todo-remove').click();
  await expect(items).toHaveCount(1);
  await manager.getByTestId('todo-complete').click();
  // Its last open step completed: the plan is done and clears.
  await expect(strip).toHaveCount(0);
  await expect(manager.getByTestId('todo-manager-empty')).toBeVisible();

  await page.keyboard.press('Control+Shift+X');
  await expect(manager).toBeHidden();
});
