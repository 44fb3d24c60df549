import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';
import { startHost } from './host.js';
import { readFileSync } from 'node:fs';

/** Still running: it exists and is not a zombie that only waits to be reaped. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

test('after a crash, a task still running from the earlier run is shown and can be ended', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  // nohup: the kind of process that survives its terminal hanging up when Drover dies.
  await page.getByTestId('composer-input').fill('&nohup sleep 600');
  await page.getByTestId('composer-input').press('Enter');
  const row = page.getByTestId('tool-row').first();
  await expect(row).toHaveAttribute('data-status', 'running');
  const taskId = (await row.getAttribute('data-task-id'))!;
  const sessionId = new URL(page.url()).hash.split('/')[2]!;
  const auth = { Authorization: `Bearer ${host.token}` };
  const pid = (
    (await (
      await page.request.get(`${host.origin}/api/sessions/${sessionId}/background-tasks/${taskId}`, { headers: auth })
    ).json()) as {
      task: { pid: number };
    }
  ).task.pid;

  // The crash: no drain, no cleanup.
  host.process.kill('SIGKILL');
  await new Promise((resolve) => host.process.once('exit', resolve));
  const port = Number(new URL(host.url).port);
  const again = await startHost({ dataDir: host.dataDir, port, token: host.token });
  try {
    await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open', { timeout: 15_000 });
    await expect(page.getByTestId('leftover-banner')).toContainText('1 task still running from an earlier run');
    await expect(row).toHaveAttribute('data-status', 'orphaned');
    await expect(row.getByTestId('tool-exit')).toContainText('still running from an earlier run');
    // The banner sits above the transcript, in the flow: the first row starts below it, uncovered.
    const banner = (await page.getByTestId('leftover-banner').boundingBox())!;
    const first = (await row.boundingBox())!;
    expect(first.y).toBeGreaterThanOrEqual(banner.y + banner.height);
    await shoot(page, testInfo, 'leftover');

    await page.getByTestId('reap-leftovers').click();
    await expect(page.getByTestId('reap-result')).toContainText('Ended 1 task');
    await expect(row).toHaveAttribute('data-status', 'stopped');
    await expect(row.getByTestId('tool-exit')).toContainText('leftover of an earlier run');
    expect(running(pid)).toBe(false);
    // The report can be put away.
    await page.getByTestId('leftover-banner-dismiss').click();
    await expect(page.getByTestId('leftover-banner')).toBeHidden();
  } finally {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already ended */
    }
    await again.stop();
  }
  pageProblems.splice(
    0,
    pageProblems.length,
    ...pageProblems.filter((text) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(text)),
  );
});
