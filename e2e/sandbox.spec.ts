import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { test as base, expect } from './fixtures.js';
import { removeDataDir, startHost, type RunningHost } from './host.js';
import { shoot } from './screens.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';

/**
 * The sandbox's screens (issue 19) on a host that really sandboxes (bubblewrap here): its
 * settings, the permission dialog's sandbox answers, and a task row naming a refused path. The
 * working folder is a temp folder of its own, outside the data folder (which no sandboxed
 * command may read or write).
 */
const test = base.extend<{ host: RunningHost }>({
  // Playwright reads a fixture's dependencies from its first parameter, which must be a pattern.
  // eslint-disable-next-line no-empty-pattern
  host: async ({}, use) => {
    const work = mkdtempSync(join(tmpdir(), 'drover-e2e-work-'));
    const host = await startHost({ sandbox: true, cwd: work });
    await use(host);
    await host.stop();
    removeDataDir(host.dataDir);
    rmSync(work, { recursive: true, force: true });
  },
});

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

const auth = (host: RunningHost) => ({ Authorization: `Bearer ${host.token}` });

async function putSettings(page: Page, host: RunningHost, data: unknown): Promise<void> {
  const saved = await page.request.put(`${host.origin}/api/settings`, { headers: auth(host), data });
  expect(saved.status()).toBe(200);
}

/** A tiny HTTP server on a loopback port no policy lists: a sandboxed command must ask to reach it. */
async function greeter(): Promise<{ port: number; server: Server }> {
  const server = createServer((_request, response) => response.end('HELLO from the greeter\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

async function newSession(page: Page, host: RunningHost): Promise<void> {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
}

/** The request shown now, once its answers have armed. */
async function armedRequest(page: Page) {
  const modal = page.getByTestId('permission-modal');
  await expect(modal).toBeVisible({ timeout: 20_000 });
  await expect(modal).toHaveAttribute('data-armed', 'true');
  return modal;
}

/**
 * Scrolls the settings' own scroller so `locator` sits near its top. (scrollIntoView would also
 * scroll the page's fixed frame, and the screenshot would show the layout shifted.)
 */
async function reveal(locator: ReturnType<Page['getByTestId']>): Promise<void> {
  await locator.evaluate((element) => {
    const scroller = element.closest('.scroller')!;
    scroller.scrollTop += element.getBoundingClientRect().top - scroller.getBoundingClientRect().top - 12;
  });
}

const answerIds = (modal: ReturnType<Page['getByTestId']>) =>
  modal
    .getByRole('group', { name: 'Your answer' })
    .getByRole('button')
    .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-testid')));

test('Settings → Sandbox: the machine has one, a host is added, a bad path is refused with its key named', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.goto(host.url);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  await page.getByTestId('open-settings').click();
  const section = page.getByTestId('settings-sandbox');
  await expect(section.getByTestId('settings-sandbox-status')).toHaveAttribute('data-active', 'true');
  await expect(section.getByTestId('settings-sandbox-status')).toContainText('bubblewrap');
  await expect(section.getByTestId('settings-sandbox-enabled')).toBeChecked();
  await expect(section.getByTestId('settings-sandbox-operatorLines')).not.toBeChecked();
  await expect(section.getByTestId('settings-sandbox-runWithoutAsking')).not.toBeChecked();

  const hosts = section.getByTestId('sandbox-hosts-section');
  const defaultHosts = await hosts.getByTestId('sandbox-hosts-item').count();
  await hosts.getByTestId('sandbox-hosts-input').fill('api.example.com:443');
  await hosts.getByTestId('sandbox-hosts-add').click();
  await expect(hosts.getByTestId('sandbox-hosts-item')).toHaveCount(defaultHosts + 1);
  await expect(hosts.getByTestId('sandbox-hosts-item').last()).toHaveAttribute('data-value', 'api.example.com:443');
  await expect(hosts.getByTestId('sandbox-hosts-input')).toHaveValue('');
  const file = JSON.parse(readFileSync(join(host.dataDir, 'settings.json'), 'utf8')) as {
    sandbox: { allowedHosts: string[] };
  };
  expect(file.sandbox.allowedHosts.at(-1)).toBe('api.example.com:443');

  // A relative path is refused by the server, which names the key; what was saved stays.
  const deny = section.getByTestId('sandbox-deny-read-section');
  const denied = await deny.getByTestId('sandbox-deny-read-item').count();
  await deny.getByTestId('sandbox-deny-read-input').fill('secrets/here');
  await deny.getByTestId('sandbox-deny-read-add').click();
  const error = deny.getByTestId('sandbox-deny-read-error');
  await expect(error).toContainText(`sandbox.denyRead.${denied}: must be an absolute path or start with ~/`);
  await expect(deny.getByTestId('sandbox-deny-read-item')).toHaveCount(denied);
  await expect(deny.getByTestId('sandbox-deny-read-input')).toHaveValue('secrets/here');
  await expect(hosts.getByTestId('sandbox-hosts-item').last()).toHaveAttribute('data-value', 'api.example.com:443');

  await reveal(section);
  await shoot(page, testInfo, 'sandbox-settings');
  await reveal(deny.getByTestId('sandbox-deny-read-input'));
  await shoot(page, testInfo, 'sandbox-settings-refused');
});

test('the dialog asks for the host a sandboxed command wants, "Allow this host for the session" lets it through; leaving the sandbox offers once or reject', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const { port, server } = await greeter();
  try {
    await putSettings(page, host, {
      provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' },
    });
    const curl = `curl -sS -m 20 http://127.0.0.1:${port}/`;
    model.enqueue(
      { toolCalls: [{ name: 'run_command', args: { command: curl } }] },
      { text: 'The greeter answered.' },
      { toolCalls: [{ name: 'run_command', args: { command: 'echo from-outside > marker', sandbox: false } }] },
      { text: 'Understood, I will stay inside.' },
    );
    await newSession(page, host);
    await page.getByTestId('composer-input').fill('ask the greeter');
    await page.getByTestId('composer-input').press('Enter');

    // The command itself asks first: it would run in the sandbox.
    let modal = await armedRequest(page);
    await expect(modal.getByTestId('permission-command')).toHaveText(curl);
    await expect(modal.getByTestId('permission-sandbox-note')).toHaveText('runs in the sandbox');
    await modal.getByTestId('permission-allow').click();

    // Then the sandbox asks for the host, with exactly what it needs.
    modal = await armedRequest(page);
    await expect(modal.getByTestId('permission-title')).toHaveText('Allow this connection?');
    await expect(modal.getByTestId('permission-sandbox-need')).toHaveText(
      `A sandboxed command wants to connect to 127.0.0.1:${port}`,
    );
    expect(await answerIds(modal)).toEqual(['permission-allow', 'permission-allow-host', 'permission-reject']);
    await expect(modal.getByTestId('permission-allow-host')).toContainText('Allow this host for the session');
    await shoot(page, testInfo, 'sandbox-dialog-network');
    await modal.getByTestId('permission-allow-host').click();
    await expect(modal).toBeHidden();

    const row = page.getByTestId('tool-row').filter({ hasText: curl });
    await expect(row).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
    await expect(row.getByTestId('tool-output')).toContainText('HELLO from the greeter');
    await model.waitForRequests(2, 15_000);
    expect(model.requests[1]!.transcript).toContain('HELLO from the greeter');

    // The session's sandbox block lists the host, and can take it back.
    const block = page.getByTestId('session-sandbox');
    await expect(block.getByTestId('session-sandbox-state')).toHaveText('on · 1 host for this session');
    await block.locator('summary').click();
    await expect(block.getByTestId('session-sandbox-host')).toHaveAttribute('data-value', `127.0.0.1:${port}`);

    // The model asks to leave the sandbox: once outside, or reject; nothing more.
    await page.getByTestId('composer-input').fill('now write a marker outside');
    await page.getByTestId('composer-input').press('Enter');
    modal = await armedRequest(page);
    await expect(modal.getByTestId('permission-title')).toHaveText('Run outside the sandbox?');
    await expect(modal.getByTestId('permission-sandbox-need')).toContainText('wants to run this outside the sandbox');
    await expect(modal.getByTestId('permission-command')).toHaveText('echo from-outside > marker');
    expect(await answerIds(modal)).toEqual(['permission-allow', 'permission-reject']);
    await expect(modal.getByTestId('permission-allow')).toContainText('Allow once outside the sandbox');
    await shoot(page, testInfo, 'sandbox-dialog-outside');
    await modal.getByTestId('permission-reject').click();
    await expect(modal).toBeHidden();
    await model.waitForRequests(4, 15_000);
    expect(model.requests[3]!.transcript).toContain('Not run: the person rejected');

    // Taken back: the block empties.
    await block.getByTestId('session-sandbox-remove').click();
    await expect(block.getByTestId('session-sandbox-host')).toHaveCount(0);
    await expect(block.getByTestId('session-sandbox-state')).toHaveText('on');
  } finally {
    server.close();
  }
});

test('a task the sandbox refused a write shows the refused path on its row and in its view', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  // Outside the temp folder and the working folder: the sandbox lets no command write there.
  const outside = join('/var/tmp', `drover-e2e-refused-${process.pid}-${Date.now()}`);
  mkdirSync(outside, { recursive: true });
  try {
    await putSettings(page, host, { sandbox: { operatorLines: true } });
    await newSession(page, host);
    const target = join(outside, 'f');
    await page.getByTestId('composer-input').fill(`&echo x > ${target}`);
    await page.getByTestId('composer-input').press('Enter');
    await expect(page.getByTestId('tool-row').first()).toHaveAttribute('data-status', 'failed', { timeout: 20_000 });
    expect(existsSync(target)).toBe(false);

    await page.getByTestId('tasks-chip').click();
    const panel = page.getByTestId('tasks-panel');
    await panel.getByTestId('finished-toggle').click();
    const row = panel.getByTestId('finished-row').first();
    await expect(row.getByTestId('finished-row-sandboxed')).toHaveText('sandboxed · 1 refused', { timeout: 15_000 });
    await row.click();
    const view = page.getByTestId('task-view');
    await expect(view.getByTestId('task-view-sandboxed')).toHaveText('in the sandbox');
    const refusal = view.locator(`[data-testid="task-refusal"][data-target="${target}"]`);
    await expect(refusal).toHaveAttribute('data-kind', 'path');
    await expect(refusal).toContainText(`write ${target}`);
    await shoot(page, testInfo, 'sandbox-task-refusal');
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
