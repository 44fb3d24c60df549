import { writeFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer } from './fake-model/index.js';
import { shoot } from './screens.js';

/** Presses Tab until `target` holds the focus (at most `limit` presses): the way a keyboard user gets there. */
async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement).catch(() => false)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

test('keyboard only: a session, & tasks, a task opened and searched, the terminal left, a task stopped, a request answered, Settings', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  test.setTimeout(120_000);
  const model = await startOpenAiCompatibleServer();
  try {
    const auth = { Authorization: `Bearer ${host.token}` };
    const saved = await page.request.put(`${host.origin}/api/settings`, {
      headers: auth,
      data: { provider: { kind: 'openai-compatible', base_url: model.baseUrl, model: 'fake', api_key: 'k' } },
    });
    expect(saved.status()).toBe(200);
    model.enqueue(
      { toolCalls: [{ name: 'run_command', args: { command: 'echo asked first | cat' } }] },
      { text: 'It printed the line.' },
    );

    // Any pointer or mouse event at all fails the walk.
    await page.addInitScript(`
      globalThis.pointerEvents = [];
      for (const type of ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'wheel', 'touchstart'])
        addEventListener(type, () => globalThis.pointerEvents.push(type), true);
    `);
    await page.goto(host.url);
    await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');

    // A session, from the keyboard.
    await tabTo(page, page.getByTestId('new-session'));
    await page.keyboard.press('Enter');
    const composer = page.getByTestId('composer-input');
    await expect(composer).toBeFocused();

    // Two background tasks: one prints a log to search and waits, one runs until stopped.
    const done = `${host.dataDir}/walk-done`;
    await page.keyboard.type(
      `&for i in $(seq 1 300); do echo "line $i"; done; echo "needle found"; while [ ! -e ${done} ]; do sleep 0.1; done`,
    );
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('tool-row').first()).toHaveAttribute('data-status', 'running');
    await page.keyboard.type('&echo second task; sleep 600');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('tool-row').nth(1)).toHaveAttribute('data-status', 'running');

    // Open the panel and the first task.
    await page.keyboard.press('Control+b');
    const panel = page.getByTestId('tasks-panel');
    await expect(panel.locator('h2')).toBeFocused();
    const firstCard = page.locator('[data-testid="task-card"]').filter({ hasText: 'needle' });
    await tabTo(page, firstCard.locator('button').first());
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('task-view-back')).toBeFocused();

    // Search its whole log: the match is counted and shown.
    await page.keyboard.press('Control+f');
    await expect(page.getByTestId('task-search-input')).toBeFocused();
    await page.keyboard.type('needle');
    await expect(page.getByTestId('task-search-count')).toHaveText(/1 of 1/);
    await page.keyboard.press('Enter');
    await shoot(page, testInfo, 'walk-search');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('task-search')).toBeHidden();

    // Into the terminal and out again with F6.
    const terminalInput = page.getByTestId('task-terminal').locator('textarea');
    await tabTo(page, terminalInput);
    await page.keyboard.press('F6');
    await expect(page.getByTestId('task-view-back')).toBeFocused();

    // Back to the list (Esc), over to the second task's Stop, and stop it.
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('task-view')).toBeHidden();
    const secondCard = page.locator('[data-testid="task-card"]').filter({ hasText: 'second task' });
    await tabTo(page, secondCard.getByTestId('task-card-stop'));
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('tool-row').nth(1)).toHaveAttribute('data-status', 'stopped', { timeout: 20_000 });

    // Out of the panel: the focus goes back to the composer. Ask the model; answer its request.
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(composer).toBeFocused();
    await page.keyboard.type('run the check');
    await page.keyboard.press('Enter');
    const modal = page.getByTestId('permission-modal');
    await expect(modal).toBeVisible();
    await page.keyboard.press('F6');
    await expect(modal).toBeFocused();
    await expect(modal).toHaveAttribute('data-armed', 'true');
    await page.keyboard.press('Alt+a');
    await expect(modal).toBeHidden();
    await expect(page.getByText('It printed the line.')).toBeVisible({ timeout: 20_000 });

    // Settings, from the keyboard.
    await tabTo(page, page.getByTestId('open-settings'));
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/#\/settings$/);
    await shoot(page, testInfo, 'walk-settings');

    const events = await page.evaluate<string[]>('globalThis.pointerEvents');
    expect(events, 'no pointer or mouse event during the walk').toEqual([]);
    writeFileSync(done, '');
  } finally {
    await model.close();
  }
});
