import { writeFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';
import { startOpenAiCompatibleServer } from './fake-model/index.js';

/** A new session with one background task that runs until the test ends it (a file appears). */
async function sessionWithTask(page: Page, url: string, dataDir: string): Promise<{ done: string }> {
  await page.goto(url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const done = `${dataDir}/done-${Date.now()}`;
  const input = page.getByTestId('composer-input');
  await input.fill(`&echo started; while [ ! -e ${done} ]; do sleep 0.1; done; echo ended`);
  await input.press('Enter');
  await expect(page.getByTestId('tool-row').first()).toHaveAttribute('data-status', 'running');
  return { done };
}

test('at 700 px the tasks panel lies over the transcript instead of squeezing it to nothing', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.setViewportSize({ width: 700, height: 760 });
  await sessionWithTask(page, host.url, host.dataDir);
  const composer = page.getByTestId('composer-input');
  const before = (await composer.boundingBox())!;

  await page.getByTestId('tool-open-in-tasks').first().click();
  const panel = page.getByTestId('tasks-panel');
  await expect(panel).toBeVisible();
  const box = (await panel.boundingBox())!;
  // The transcript keeps its width under the panel; the panel is readable, not a 120 px sliver.
  const after = (await composer.boundingBox())!;
  expect(after.width).toBeCloseTo(before.width, 0);
  expect(box.width).toBeGreaterThan(400);
  expect(box.x + box.width).toBeLessThanOrEqual(700);
  await shoot(page, testInfo, 'narrow-panel');

  // Esc in the panel steps back: from the task to the list, then out, the focus back where it was.
  await expect(page.getByTestId('task-view-back')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('task-view')).toBeHidden();
  await expect(page.getByTestId('task-card').first().locator('button').first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(page.getByTestId('tool-open-in-tasks').first()).toBeFocused();
});

test('the focus never drops to the page: into the panel, back from a task, out of the terminal with F6', async ({
  page,
  host,
  pageProblems,
}) => {
  void pageProblems;
  await sessionWithTask(page, host.url, host.dataDir);
  const composer = page.getByTestId('composer-input');
  await composer.focus();
  await page.keyboard.press('Control+b');
  const panel = page.getByTestId('tasks-panel');
  await expect(panel).toBeVisible();
  await expect(panel.locator('h2')).toBeFocused();

  // Open the task from its card with the keyboard: the focus lands on "back", not the body.
  await page.keyboard.press('Tab');
  const open = page.getByTestId('task-card').first().locator('button').first();
  while (!(await open.evaluate((element) => element === element.ownerDocument.activeElement)))
    await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('task-view-back')).toBeFocused();

  // Into the terminal: keys go to the program (Esc too), its frame shows the focus, F6 leaves it.
  const terminal = page.getByTestId('task-terminal');
  await terminal.click();
  await expect(terminal.locator('textarea')).toBeFocused();
  const ring = await terminal.evaluate(
    (element) => element.ownerDocument.defaultView!.getComputedStyle(element).outlineStyle,
  );
  expect(ring).toBe('solid');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('task-view')).toBeVisible();
  await expect(terminal.locator('textarea')).toBeFocused();
  await page.keyboard.press('F6');
  await expect(page.getByTestId('task-view-back')).toBeFocused();

  // Closing the panel gives the focus back to the composer, where it was when the panel opened.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(composer).toBeFocused();
  expect(await page.evaluate('document.activeElement === document.body')).toBe(false);
});

test('small things: one "No sessions yet", no token in the address bar, clean titles, a delete that names what it stops', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  await expect(page.getByText('No sessions yet')).toHaveCount(1);
  await expect(page.getByTestId('home-hint')).toContainText('shell command');
  await shoot(page, testInfo, 'home');

  // The token is kept for this tab, not in the address bar or the history: taken out once the page is idle.
  await expect.poll(() => page.evaluate<string>('location.href')).not.toContain(host.token);
  expect(page.url()).not.toContain('token');
  await page.reload();
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');

  // A title with ESC or NUL is refused by name; the stored title stays.
  const auth = { Authorization: `Bearer ${host.token}` };
  const created = await page.request.post(`${host.origin}/api/sessions`, { headers: auth, data: { title: 'Plain' } });
  const { id } = (await created.json()) as { id: string };
  for (const title of ['red \u001b[31m', 'nul \u0000 here']) {
    const res = await page.request.patch(`${host.origin}/api/sessions/${id}`, { headers: auth, data: { title } });
    expect(res.status()).toBe(400);
    const body = (await res.json()) as { error: { path: string; message: string } };
    expect(body.error.path).toBe('title');
    expect(body.error.message).toMatch(/control characters/);
    expect(body.error.message).not.toMatch(/renameSession/);
  }
  const stored = await page.request.get(`${host.origin}/api/sessions/${id}`, { headers: auth });
  expect(((await stored.json()) as { title: string }).title).toBe('Plain');

  // Delete says that the running task will be stopped; Esc cancels and gives the focus back.
  const { done } = await sessionWithTask(page, host.url, host.dataDir);
  await page.getByTestId('delete-session').click();
  const dialog = page.getByTestId('delete-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('1 running task will be stopped');
  await expect(page.getByTestId('cancel-delete')).toBeFocused();
  await shoot(page, testInfo, 'delete-dialog');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('delete-session')).toBeFocused();
  writeFileSync(done, '');
  await expect(page.getByTestId('tool-row').first()).toHaveAttribute('data-status', 'succeeded');
});

test('Esc on a permission request says it waits, and F6 comes back to it', async ({ page, host, pageProblems }) => {
  void pageProblems;
  const model = await startOpenAiCompatibleServer();
  try {
    const auth = { Authorization: `Bearer ${host.token}` };
    const saved = await page.request.put(`${host.origin}/api/settings`, {
      headers: auth,
      data: { provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' } },
    });
    expect(saved.status()).toBe(200);
    model.enqueue({ toolCalls: [{ name: 'run_command', args: { command: 'echo ask first | cat' } }] }, { text: 'Ok.' });
    await page.goto(host.url);
    await page.getByTestId('new-session').click();
    await page.getByTestId('composer-input').fill('run it');
    await page.getByTestId('composer-input').press('Enter');
    const modal = page.getByTestId('permission-modal');
    await expect(modal).toBeVisible();
    await page.keyboard.press('F6');
    await expect(modal).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('permission-deferred')).toContainText('waits until you answer');
    await expect(page.getByTestId('composer-input')).toBeFocused();
    await page.keyboard.press('F6');
    await expect(modal).toBeFocused();
    await expect(page.getByTestId('permission-deferred')).toBeHidden();
  } finally {
    await model.close();
  }
});
