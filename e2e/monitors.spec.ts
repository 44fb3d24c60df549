import { createServer } from 'node:net';
import type { APIRequestContext } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';

/** A TCP port nothing listens on right now: the system picks one, and it is let go at once. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** This Node, by its full path: the task's shell need not have it on its PATH. */
const NODE = JSON.stringify(process.execPath);

/** A server on `port` (0: any) that prints where it listens once it does. */
const server = (port: number) =>
  `${NODE} -e "require('http').createServer((q,s)=>s.end('ok')).listen(${port},'127.0.0.1',function(){console.log('Local: http://127.0.0.1:'+this.address().port)})"`;

interface Row {
  id: string;
  kind: string;
}

/** Starts a background task through the REST API, as a script or another client would. */
async function startTask(
  request: APIRequestContext,
  host: { origin: string; token: string },
  sessionId: string,
  body: Record<string, unknown>,
): Promise<Row> {
  const res = await request.post(`${host.origin}/api/sessions/${sessionId}/background-tasks`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: body,
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Row;
}

test('monitors and shells apart, the count by kind, a check counting down, ports and readiness', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const sessionId = /#\/s\/([a-z0-9]+)$/.exec(page.url())![1]!;
  const [fixedPort, closedPort] = [await freePort(), await freePort()];
  // A foreground line first: the transcript shows the tasks chip under its last row (a foreground run is no task there).
  const composer = page.getByTestId('composer-input');
  await composer.fill('!echo watching');
  await composer.press('Enter');
  await expect(page.getByTestId('tool-row').first()).toHaveAttribute('data-status', 'succeeded');

  const monitor = await startTask(page.request, host, sessionId, {
    command: 'while true; do echo "tick $(date +%s)"; sleep 1; done',
    kind: 'monitor',
    notify: 'scheduled',
    check_after_seconds: 600,
  });
  expect(monitor.id).toMatch(/^mon_\d+$/);
  const fixed = await startTask(page.request, host, sessionId, { command: server(fixedPort) });
  const ready = await startTask(page.request, host, sessionId, {
    command: server(0),
    ready: { pattern: 'Local:.*http' },
  });
  // Declares readiness by a URL that never answers: it waits, until it is stopped.
  const waiting = await startTask(page.request, host, sessionId, {
    command: 'while true; do sleep 1; done',
    ready: { http: `http://127.0.0.1:${closedPort}/health` },
  });

  // The chip under the transcript and the nav rail count by kind.
  await expect(page.getByTestId('tasks-chip')).toHaveText('3 shells, 1 monitor');
  await expect(page.getByTestId('background-badge')).toHaveText('3 shells, 1 monitor');

  await page.getByTestId('tasks-chip').click();
  const panel = page.getByTestId('tasks-panel');
  await expect(panel.getByTestId('task-group-title')).toHaveText(['Shells 3', 'Monitors 1']);
  const group = (kind: string) => panel.locator(`[data-testid="task-group"][data-kind="${kind}"]`);
  await expect(group('command').getByTestId('task-card')).toHaveCount(3);
  const card = (id: string) => panel.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
  await expect(group('monitor').getByTestId('task-card')).toHaveAttribute('data-task-id', monitor.id);

  // The monitor says so, and counts down to its check.
  const monitorCard = card(monitor.id);
  await expect(monitorCard.getByTestId('task-kind')).toHaveText('monitor');
  const schedule = monitorCard.getByTestId('task-schedule');
  await expect(schedule).toHaveText(/^next check in (9 min \d\d s|10 min 00 s)$/);
  const before = (await schedule.textContent()) ?? '';
  await expect(schedule).not.toHaveText(before, { timeout: 5_000 });
  await expect(card(fixed.id).getByTestId('task-kind')).toHaveCount(0);

  // Ports as the port index finds them (it scans every ~2 s).
  const fixedChip = card(fixed.id).getByTestId('task-port');
  await expect(fixedChip).toHaveText(`:${fixedPort}`, { timeout: 15_000 });
  await expect(fixedChip).toHaveAttribute('title', `Listening on TCP port ${fixedPort}`);
  await expect(card(ready.id).getByTestId('task-port')).toHaveText(/^:\d+$/, { timeout: 15_000 });
  await expect(card(monitor.id).getByTestId('task-port')).toHaveCount(0);

  // Readiness: met by its output, and one still waiting with the check in words.
  await expect(card(ready.id).getByTestId('task-readiness')).toHaveAttribute('data-state', 'ready', {
    timeout: 15_000,
  });
  await expect(card(ready.id).getByTestId('task-readiness')).toHaveText(/^ready in (under 1 s|\d+ s)$/);
  await expect(card(waiting.id).getByTestId('task-readiness')).toHaveText(
    `waiting until ready: http://127.0.0.1:${closedPort}/health answers`,
  );
  await expect(card(fixed.id).getByTestId('task-readiness')).toHaveCount(0);
  // Tall enough that both groups show whole (the Running list scrolls within 60 % of the panel).
  await page.setViewportSize({ width: 1200, height: 1000 });
  await shoot(page, testInfo, 'monitors-panel');
  await page.setViewportSize({ width: 1200, height: 760 });

  // The monitor's view: its facts, its output.
  await monitorCard.getByRole('button', { name: new RegExp(`^Open ${monitor.id}`) }).click();
  const view = page.getByTestId('task-view');
  await expect(view.getByTestId('task-view-schedule')).toHaveText(/^next check in \d+ min \d\d s$/);
  await expect(view.getByTestId('task-terminal')).toContainText('tick');
  await shoot(page, testInfo, 'monitor-view');

  // Back to the card, the focus with it; then the ready server's view.
  await view.getByTestId('task-view-back').click();
  await expect(monitorCard.getByRole('button', { name: new RegExp(`^Open ${monitor.id}`) })).toBeFocused();
  await card(ready.id)
    .getByRole('button', { name: new RegExp(`^Open ${ready.id}`) })
    .click();
  await expect(view.getByTestId('task-view-readiness')).toHaveText(/^ready in (under 1 s|\d+ s)$/);
  await expect(view.getByTestId('task-port')).toHaveText(/^:\d+$/);
  await shoot(page, testInfo, 'ready-view');
  await view.getByTestId('task-view-back').click();

  // Stopped while it waited: it ended before it was ready.
  await card(waiting.id).getByTestId('task-card-stop').click();
  await expect(card(waiting.id)).toHaveCount(0);
  await expect(page.getByTestId('background-badge')).toHaveText('2 shells, 1 monitor');
  await panel.getByTestId('finished-toggle').click();
  await panel.locator(`[data-testid="finished-row"][data-task-id="${waiting.id}"]`).click();
  await expect(view.getByTestId('task-view-readiness')).toHaveText('ended before it was ready');
  await shoot(page, testInfo, 'unready-view');
  await view.getByTestId('task-view-back').click();

  // With the shells stopped, one kind is left: no headings.
  for (const id of [fixed.id, ready.id]) {
    await card(id).getByTestId('task-card-stop').click();
    await expect(card(id)).toHaveCount(0);
  }
  await expect(panel.getByTestId('task-group')).toHaveCount(0);
  await expect(card(monitor.id)).toBeVisible();
  await expect(page.getByTestId('background-badge')).toHaveText('1 monitor');
  await expect(page.getByTestId('tasks-chip')).toHaveText('1 monitor');
});
