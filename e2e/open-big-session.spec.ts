import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { openDatabase } from '../electron/store/database.js';
import { removeDataDir, startHost } from './host.js';
import { seedBigSession } from './seed-session.js';
import { shoot } from './screens.js';

const LAST = 'The last word of a long session.';

// A session with 3,000 finished tasks and 600 messages opens on its newest page (issue 18);
// scrolling up brings older messages without moving what is read, scrolling Finished brings more rows.
base(
  'a big session opens on its last page and loads older messages and more finished rows as they scroll into view',
  async ({ page }, testInfo) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-big-'));
    seedBigSession(dataDir, { session: 'bigsession', finished: 3_000, messages: 600, lastText: LAST });
    const host = await startHost({ dataDir });
    try {
      const sockets: string[] = [];
      page.on('websocket', (socket) => sockets.push(socket.url()));
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refused.push(message.text());
      });
      await page.goto(`${host.url}#/s/bigsession/tasks`);
      const transcript = page.getByTestId('transcript');
      await expect(transcript.locator('li').last()).toContainText(LAST);
      await expect(page.getByTestId('finished-toggle')).toContainText('Finished 3000');
      // One connection, the one the page's own script opened as it was parsed, with the first
      // reads in its handshake (shared/ipc/early-socket.ts): the app took it over rather than open
      // one of its own, and the page's policy let the script run.
      expect(sockets).toHaveLength(1);
      const carried = JSON.parse(new URL(sockets[0]!).searchParams.get('calls')!) as { name: string }[];
      expect(carried.map((call) => call.name)).toEqual(['listSessions', 'listMessages', 'openTasks']);
      expect(refused).toEqual([]);
      // Opened on the tasks panel, the panel's heading has the focus (given in the frame after the
      // view is built), and the composer's own focus at opening did not take it back.
      await expect(page.getByTestId('tasks-panel').locator('h2')).toBeFocused();
      // Opened on the transcript alone, the composer has it.
      await page.goto('about:blank');
      await page.goto(`${host.url}#/s/bigsession`);
      await expect(page.getByTestId('composer-input')).toBeFocused();
      await page.goto(`${host.url}#/s/bigsession/tasks`);
      await expect(page.getByTestId('tasks-panel').locator('h2')).toBeFocused();
      await expect(transcript.locator('li').last()).toContainText(LAST);
      const heldAtOpen = await transcript.locator(':scope > ol > li').count();
      expect(heldAtOpen).toBeLessThan(600);

      // Scroll to the top: older messages are put above, and the message that was first stays in view.
      // Its text, not innerText: a row out of view is not rendered (content-visibility), so it has none.
      const firstText = (await transcript.locator(':scope > ol > li').first().textContent())!.trim().slice(0, 40);
      expect(firstText).toContain('Message ');
      const scroller = transcript.locator('xpath=..');
      await scroller.evaluate((element) => (element.scrollTop = 0));
      await expect.poll(() => transcript.locator(':scope > ol > li').count()).toBeGreaterThan(heldAtOpen);
      await expect(transcript.locator(':scope > ol > li', { hasText: firstText }).first()).toBeInViewport();

      // Finished: the first page shows, and scrolling to its end loads the next one.
      await page.getByTestId('finished-toggle').click();
      const rows = page.getByTestId('finished-row');
      await expect(rows.first()).toBeVisible();
      const list = page.locator('.finished-vlist');
      const deep = rows.filter({ hasText: 'npm run step -- 2800' });
      await expect
        .poll(
          async () => {
            await list.evaluate((element) => (element.scrollTop = element.scrollHeight));
            return deep.count();
          },
          { timeout: 20_000 },
        )
        .toBeGreaterThan(0);
      await shoot(page, testInfo, 'open-big-session');
    } finally {
      await host.stop();
      removeDataDir(dataDir);
    }
  },
);

// The Work tab shows on an item every task started for it, also a finished one no page of the
// tasks panel has loaded (the panel loads its Finished rows page by page).
base('the Work tab shows a finished task of an item that no loaded page holds', async ({ page }, testInfo) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-big-work-'));
  seedBigSession(dataDir, { session: 'bigwork', finished: 400, messages: 10, lastText: LAST });
  // The oldest task was started for item 1: the first page (the newest 50) does not hold it.
  const db = openDatabase(join(dataDir, 'drover.sqlite'));
  db.prepare("UPDATE tasks SET work_list_id = 'bigwork', work_item_id = 1 WHERE id = 'bg_1'").run();
  db.close();
  const host = await startHost({ dataDir });
  try {
    const created = await page.request.post(`${host.origin}/api/work-lists/bigwork/items`, {
      headers: { Authorization: `Bearer ${host.token}` },
      data: { subject: 'Run the first step' },
    });
    expect(created.status(), await created.text()).toBe(201);
    await page.goto(`${host.url}#/s/bigwork/work`);
    const item = page.locator('[data-testid="work-item"][data-item-id="1"]');
    await expect(item.getByTestId('work-item-task')).toHaveText(/bg_1 · /);
    await shoot(page, testInfo, 'work-big-session');
  } finally {
    await host.stop();
    removeDataDir(dataDir);
  }
});

// The first screen is built without the locale's date and number data (renderer/src/lib/state/
// locale.svelte.ts): where the machine has cores to spare a worker reads it in beside the page,
// else the page does once the first screen is up. Either way the messages' times then show, and
// on two cores no formatter was made before the transcript's last message was on the page.
for (const cores of [2, 8]) {
  base(
    `with ${cores} cores the locale's data is read in ${cores > 2 ? 'by a worker' : 'after the first screen'} and the times show`,
    async ({ page }) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-warm-'));
      seedBigSession(dataDir, { session: 'warm', finished: 20, messages: 10, lastText: LAST });
      const host = await startHost({ dataDir });
      try {
        await page.addInitScript(`(() => {
          Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => ${cores} });
          const seen = (window.__localeSeen = { formatter: null, last: null });
          for (const name of ['DateTimeFormat', 'NumberFormat']) {
            const Real = Intl[name];
            Intl[name] = new Proxy(Real, { construct(target, args) { seen.formatter ??= performance.now(); return Reflect.construct(target, args); } });
          }
          new MutationObserver(() => {
            if (seen.last === null && document.querySelector('[data-testid="transcript"]')?.textContent?.includes(${JSON.stringify(LAST)}))
              seen.last = performance.now();
          }).observe(document, { childList: true, subtree: true, characterData: true });
        })()`);
        const workers: string[] = [];
        page.on('worker', (worker) => workers.push(worker.url()));
        const failures: string[] = [];
        page.on('pageerror', (error) => failures.push(error.message));
        page.on('console', (message) => message.type() === 'error' && failures.push(message.text()));
        await page.goto(`${host.url}#/s/warm/tasks`);
        const last = page.getByTestId('transcript').locator('li').last();
        await expect(last).toContainText(LAST);
        await expect(page.getByTestId('finished-toggle')).toContainText('Finished 20');
        // Each message's time, as the locale writes it, once the locale is in.
        await expect(last.locator('time')).toHaveText(/\d/);
        if (cores > 2) await expect.poll(() => workers.filter((url) => url.includes('intl-warm')).length).toBe(1);
        else {
          expect(workers).toEqual([]);
          const seen = await page.evaluate<{ formatter: number | null; last: number | null }>(
            'globalThis.__localeSeen',
          );
          expect(seen.last).not.toBeNull();
          expect(seen.formatter).not.toBeNull();
          expect(seen.formatter!).toBeGreaterThan(seen.last!);
        }
        expect(failures).toEqual([]);
      } finally {
        await host.stop();
        removeDataDir(dataDir);
      }
    },
  );
}
