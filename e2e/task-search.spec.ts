import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';

test('search in the terminal: highlights, next and previous, "N of M" over the whole log, growing while the task prints', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const until = (name: string) => `while [ ! -e ${name} ]; do sleep 0.05; done`;
  // One match far back (past the 256 KiB the terminal loads), five in the tail; three more when told.
  const command =
    `&echo "needle zero"; head -c 400000 /dev/zero | tr '\\0' 'x' | fold -w 100; echo; ` +
    `for i in 1 2 3 4 5; do echo "needle $i"; done; ${until('go')}; ` +
    `for i in 6 7 8; do echo "needle $i"; done; ${until('end')}`;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  const input = page.getByTestId('composer-input');
  await input.fill(command);
  await input.press('Enter');
  await expect(page.getByTestId('tool-row').first()).toHaveAttribute('data-status', 'running');
  await page.getByTestId('tasks-chip').click();
  await page
    .getByTestId('task-card')
    .first()
    .getByRole('button', { name: /^Open bg_1/ })
    .click();
  const view = page.getByTestId('task-view');
  const terminal = view.getByTestId('task-terminal');
  await expect(terminal).toContainText('needle 5');

  // Ctrl+F from inside the terminal opens the search with the focus in its field.
  await terminal.click();
  await page.keyboard.press('Control+f');
  const field = view.getByTestId('task-search-input');
  await expect(field).toBeFocused();
  await field.fill('needle');
  const count = view.getByTestId('task-search-count');
  // The newest match is current; the count covers the whole log on disk, not just the terminal.
  await expect(count).toHaveText('6 of 6');
  await expect(terminal.locator('.xterm-find-result-decoration')).not.toHaveCount(0);
  // The current one is framed (an outline set through the CSSOM: the page's CSP refuses style attributes).
  await expect(terminal.locator('.xterm-find-result-decoration[style*="outline"]')).toHaveCount(1);

  // Enter goes on: past the last, the log's first match, older than the terminal's text.
  await field.press('Enter');
  await expect(count).toHaveText('1 of 6');
  const earlier = view.getByTestId('task-search-earlier');
  await expect(earlier).toContainText('Line 1');
  await expect(earlier).toContainText('needle zero');
  await shoot(page, testInfo, 'task-search-earlier');
  await field.press('Enter');
  await expect(count).toHaveText('2 of 6');
  await expect(earlier).toHaveCount(0);
  await page.keyboard.press('F3');
  await expect(count).toHaveText('3 of 6');
  await field.press('Shift+Enter');
  await expect(count).toHaveText('2 of 6');
  await view.getByTestId('task-search-previous').click();
  await expect(count).toHaveText('1 of 6');
  await view.getByTestId('task-search-next').click();
  await expect(count).toHaveText('2 of 6');
  await shoot(page, testInfo, 'task-search');

  // New output is counted as it arrives.
  writeFileSync(join(host.dataDir, 'go'), '');
  await expect(terminal).toContainText('needle 8');
  await expect(count).toHaveText(/ of 9$/);
  await view.getByTestId('task-search-previous').focus();
  await field.focus();
  await field.press('Shift+Enter');
  await expect(count).toHaveText(/^\d of 9$/);

  // Esc closes it and gives the focus back to the terminal.
  await field.press('Escape');
  await expect(view.getByTestId('task-search')).toHaveCount(0);
  await expect(view).toBeVisible();
  await expect(terminal.locator('textarea')).toBeFocused();
  await expect(terminal.locator('.xterm-find-result-decoration')).toHaveCount(0);
  writeFileSync(join(host.dataDir, 'end'), '');
  await expect(view).toHaveAttribute('data-status', 'succeeded');
});
