import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from './fixtures.js';
import { startHost } from './host.js';

/** A tmpfs of its own (root, as the containment tests need): the host's data folder on a disk that can be filled. */
function smallDisk(megabytes: number): {
  data: string;
  fill(spareBytes: number): void;
  makeRoom(): void;
  remove(): void;
} {
  const root = mkdtempSync('/tmp/drover-e2e-full-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', root]);
  const filler = join(root, 'filler');
  return {
    data: join(root, 'data'),
    fill(spareBytes) {
      const { bavail, bsize } = statfsSync(root);
      writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - spareBytes)));
    },
    makeRoom: () => rmSync(filler, { force: true }),
    remove() {
      execFileSync('umount', ['-l', root]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

test('a full disk shows a banner that stays until room returns, and the task says what its log missed', async ({
  page,
  pageProblems: _pageProblems, // requested for its check: the page logs no errors meanwhile
}, testInfo) => {
  const disk = smallDisk(6);
  const host = await startHost({ dataDir: disk.data });
  try {
    await page.goto(host.url);
    await page.getByTestId('new-session').click();
    await expect(page.getByTestId('composer-input')).toBeVisible();
    disk.fill(1024 * 1024);
    await page.getByTestId('composer-input').fill('&yes 0123456789abcdef | head -c 20000000; echo done');
    await page.getByTestId('composer-input').press('Enter');
    const banner = page.getByTestId('storage-banner');
    await expect(banner).toContainText(`The disk holding ${disk.data} is full: output is not being saved`);
    const row = page.getByTestId('tool-row').first();
    await expect(row).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

    await page.getByTestId('tasks-chip').click();
    await page.getByTestId('finished-toggle').click();
    await page.getByTestId('finished-row').first().click();
    await expect(page.getByTestId('task-view-log-note')).toContainText('of its output was not saved');
    // What the log did keep, as the terminal shows it (the last bytes before the disk filled).
    await expect(page.getByTestId('task-terminal')).toContainText('0123456789abcdef', { timeout: 15_000 });
    const shot = testInfo.outputPath('disk-full.png');
    await page.screenshot({ path: shot });
    await testInfo.attach('the disk is full', { path: shot, contentType: 'image/png' });

    disk.makeRoom();
    await expect(banner).toHaveCount(0, { timeout: 15_000 });
  } finally {
    await host.stop();
    disk.remove();
  }
});

test('a task whose Drover died and whose processes ended is shown as lost, and Clear removes it', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  // No nohup: it ends with the hangup when its Drover dies.
  await page.getByTestId('composer-input').fill('&echo started; exec sleep 600');
  await page.getByTestId('composer-input').press('Enter');
  const row = page.getByTestId('tool-row').first();
  await expect(row).toHaveAttribute('data-status', 'running');

  host.process.kill('SIGKILL');
  await new Promise((resolve) => host.process.once('exit', resolve));
  const again = await startHost({ dataDir: host.dataDir, port: Number(new URL(host.url).port), token: host.token });
  try {
    await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open', { timeout: 15_000 });
    await expect(row).toHaveAttribute('data-status', 'lost');
    await expect(row.getByTestId('tool-exit')).toContainText('Drover stopped while this task ran');
    await page.getByTestId('tasks-chip').click();
    await page.getByTestId('finished-toggle').click();
    await expect(page.getByTestId('finished-row')).toHaveAttribute('data-status', 'lost');
    const shot = testInfo.outputPath('lost.png');
    await page.screenshot({ path: shot });
    await testInfo.attach('a task lost with its Drover', { path: shot, contentType: 'image/png' });
    // Settled for good: Clear takes it like any finished task.
    await expect(page.getByTestId('task-card')).toHaveCount(0);
    await page.getByTestId('tasks-clear').click();
    await expect(page.locator('[data-testid="finished-row"], [data-testid="task-card"]')).toHaveCount(0);
  } finally {
    await again.stop();
  }
  pageProblems.splice(
    0,
    pageProblems.length,
    ...pageProblems.filter((text) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(text)),
  );
});
