import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { shoot } from './screens.js';
import type { RunningHost } from './host.js';
import { sessionGroupsApply, sharedNice } from '../electron/process/task-weight.js';
import { startOpenAiCompatibleServer, type FakeModelServer, type ScriptedReply } from './fake-model/index.js';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

/** The fake model's answer to a test: it knows one key, as a real provider does. */
const keyed: ScriptedReply = (request) =>
  request.headers.authorization === 'Bearer sk-good'
    ? { text: 'p' }
    : { status: 401, body: { error: { message: 'Incorrect API key provided' } } };

async function openSettings(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'open');
  await page.getByTestId('open-settings').click();
}

const settingsFile = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, Record<string, unknown>>;
/** The desktop section of settings.json, or null before the first save has written the file. */
const desktopInFile = (dataDir: string) => {
  try {
    return settingsFile(dataDir).desktop ?? null;
  } catch {
    return null;
  }
};

/** A new session on the host, and its background tasks through the REST API. */
async function taskSession(page: Page, host: RunningHost, title: string) {
  const headers = { Authorization: `Bearer ${host.token}` };
  const created = await page.request.post(`${host.origin}/api/sessions`, { headers, data: { title } });
  const tasks = `${host.origin}/api/sessions/${((await created.json()) as { id: string }).id}/background-tasks`;
  return {
    /** Starts a command; its task's id. */
    async start(command: string): Promise<string> {
      const started = await page.request.post(tasks, { headers, data: { command } });
      expect(started.status(), await started.text()).toBe(201);
      return ((await started.json()) as { id: string }).id;
    },
    /** The task's status and the last lines of its output. */
    async read(id: string): Promise<{ status: string; text: string }> {
      const res = await page.request.get(`${tasks}/${id}?tail=5`, { headers });
      const body = (await res.json()) as { task: { status: string }; output: { text: string } };
      return { status: body.task.status, text: body.output.text };
    },
    async stop(id: string): Promise<void> {
      const stopped = await page.request.post(`${tasks}/${id}/stop`, { headers });
      expect(stopped.ok(), await stopped.text()).toBe(true);
    },
  };
}

test('Settings says Configured, and Test connection proves the key, URL and model or says what is wrong', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await page.request.put(`${host.origin}/api/settings`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: { provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake-model', apiKey: 'sk-good' } },
  });
  await openSettings(page, host.url);
  // The bottom-left words are the page's link to Drover, never the model.
  await expect(page.getByTestId('connection-state')).toHaveText('Linked to Drover');
  const status = page.getByTestId('settings-status');
  await expect(status).toContainText('Configured: fake-model');
  await expect(status).toContainText(model.baseUrl);
  await expect(status).not.toContainText('Connected');

  model.enqueue(keyed);
  await page.getByTestId('settings-test').click();
  const result = page.getByTestId('settings-test-result');
  await expect(result).toHaveAttribute('data-ok', 'true');
  await expect(result).toHaveText(/^\s*Works: fake-model answered in \d+ ms\.$/);
  expect(model.requests.at(-1)!.body).toMatchObject({ model: 'fake-model', max_tokens: 1 });
  await result.scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'settings-model');

  // A key typed in the form is tested before it is saved, and never shown back.
  await page.getByTestId('settings-key-replace').click();
  await page.getByTestId('settings-api-key').fill('sk-wrong-0123456789');
  await expect(result).toBeHidden();
  model.enqueue(keyed);
  await page.getByTestId('settings-test').click();
  await expect(result).toHaveAttribute('data-reason', 'bad_key');
  await expect(result).toContainText('Key refused');
  await expect(result).toContainText('HTTP 401');
  await expect(result).not.toContainText('sk-wrong');
  await result.scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'settings-model-bad-key');

  // The model server dies: the settings still say Configured, and the test says nothing answers.
  await model.close();
  await page.reload();
  await page.getByTestId('open-settings').click();
  await expect(status).toContainText('Configured: fake-model');
  await page.getByTestId('settings-test').click();
  await expect(result).toHaveAttribute('data-reason', 'unreachable');
  await expect(result).toContainText('Unreachable');
  await expect(result).toContainText('refused');
});

test('Background tasks shows the figures in force, saves a change, refuses a bad one and resets', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await openSettings(page, host.url);
  const row = (id: string) => page.locator(`[data-testid="tunable"][data-id="${id}"]`);
  const wait = row('background.foregroundWaitSeconds');
  await expect(wait.getByTestId('tunable-value')).toHaveText('30 s');
  await expect(wait.getByTestId('tunable-source')).toHaveText('default');
  await expect(row('background.defaultTimeoutSeconds').getByTestId('tunable-value')).toHaveText('15 min (900 s)');
  await expect(row('background.maxConcurrent').getByTestId('tunable-value')).toHaveText('5');
  await expect(row('background.outputBufferBytes').getByTestId('tunable-value')).toHaveText('256 KiB (262144 bytes)');
  await expect(page.locator('[data-testid="settings-background"] [data-id^="budget."]')).toHaveCount(0);

  // A change is saved to settings.json and shown with its new source.
  await wait.getByTestId('tunable-change').click();
  await expect(wait.getByTestId('tunable-input')).toBeFocused();
  await wait.getByTestId('tunable-input').fill('12');
  await wait.getByTestId('tunable-input').press('Enter');
  await expect(wait.getByTestId('tunable-value')).toHaveText('12 s');
  await expect(wait.getByTestId('tunable-source')).toHaveText('settings.json');
  expect(settingsFile(host.dataDir).background).toEqual({ foregroundWaitSeconds: 12 });

  // It survives a reload.
  await page.reload();
  await page.getByTestId('open-settings').click();
  await expect(wait.getByTestId('tunable-value')).toHaveText('12 s');
  await expect(wait.getByTestId('tunable-source')).toHaveText('settings.json');

  // A bad figure names the field and stores nothing.
  const cap = row('background.maxConcurrent');
  await cap.getByTestId('tunable-change').click();
  await cap.getByTestId('tunable-input').fill('0');
  await cap.getByTestId('tunable-save').click();
  await expect(cap.getByTestId('tunable-error')).toContainText('Running at once in a session, at most');
  await expect(cap.getByTestId('tunable-error')).toContainText('background.maxConcurrent');
  await expect(cap.getByTestId('tunable-error')).toContainText('from 1 to 64');
  await expect(cap.getByTestId('tunable-input')).toHaveAttribute('aria-invalid', 'true');
  expect(settingsFile(host.dataDir).background).toEqual({ foregroundWaitSeconds: 12 });
  await cap.getByTestId('tunable-input').scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'settings-background-error');
  // The host checks with the same schema: a figure sent past the page is refused naming the field.
  const refused = await page.request.put(`${host.origin}/api/settings`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: { background: { max_concurrent: 65 } },
  });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error.path).toBe('background.max_concurrent');
  await cap.getByTestId('tunable-input').press('Escape');
  await expect(cap.getByTestId('tunable-error')).toBeHidden();

  await wait.scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'settings-background');

  // Reset takes the figure out of the file: the default again.
  await wait.getByTestId('tunable-reset').click();
  await expect(wait.getByTestId('tunable-value')).toHaveText('30 s');
  await expect(wait.getByTestId('tunable-source')).toHaveText('default');
  await expect(wait.getByTestId('tunable-reset')).toBeHidden();
  expect(settingsFile(host.dataDir).background).toBeUndefined();
});

test('Desktop app: the choice on close and updates are saved to settings.json and survive a reload', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await openSettings(page, host.url);
  const section = page.getByTestId('settings-when-closed');
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByRole('radio', { name: /Keep running in the tray/ })).toBeChecked();
  await expect(page.getByTestId('settings-auto-update')).not.toBeChecked();
  await expect(page.getByText('this page is served by the headless host')).toBeVisible();
  await shoot(page, testInfo, 'settings-desktop');

  await section.getByRole('radio', { name: /Quit and stop everything/ }).check();
  await expect.poll(() => desktopInFile(host.dataDir)).toEqual({ whenClosed: 'quit' });
  await page.getByTestId('settings-auto-update').check();
  await expect.poll(() => desktopInFile(host.dataDir)).toEqual({ whenClosed: 'quit', autoUpdate: true });

  await page.reload();
  await page.getByTestId('open-settings').click();
  await expect(page.getByTestId('settings-when-closed').getByRole('radio', { name: /Quit and stop/ })).toBeChecked();
  await expect(page.getByTestId('settings-auto-update')).toBeChecked();
});

test("Tasks start at Drover's own priority by default; set to 19 in Settings, the next task starts at the lowest", async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const session = await taskSession(page, host, 'priority');
  /** The nice value a task started now runs at, as `nice` itself prints it. */
  const taskNice = async (): Promise<number> => {
    const id = await session.start('nice');
    let text = '';
    await expect
      .poll(async () => {
        const read = await session.read(id);
        text = read.text;
        return read.status;
      })
      .toBe('succeeded');
    return Number(text.trim());
  };
  // The host runs at this process's nice value, and by default so do its tasks.
  const own = getPriority();
  expect(await taskNice()).toBe(own);

  await openSettings(page, host.url);
  const row = page.locator('[data-testid="tunable"][data-id="background.taskNice"]');
  await expect(row.getByTestId('tunable-value')).toHaveText('0');
  await expect(row.getByTestId('tunable-source')).toHaveText('default');
  await row.getByTestId('tunable-change').click();
  await row.getByTestId('tunable-input').fill('20');
  await row.getByTestId('tunable-save').click();
  await expect(row.getByTestId('tunable-error')).toContainText('background.taskNice');
  await expect(row.getByTestId('tunable-error')).toContainText('from 0 to 19');
  await row.getByTestId('tunable-input').fill('19');
  await row.getByTestId('tunable-save').click();
  await expect(row.getByTestId('tunable-value')).toHaveText('19');
  await expect(row.getByTestId('tunable-source')).toHaveText('settings.json');
  expect(settingsFile(host.dataDir).background).toEqual({ taskNice: 19 });
  await row.scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'settings-task-nice');

  // Applied to the next task, without a restart.
  expect(await taskNice()).toBe(19);
});

test('Busy tasks share one program weight by default; switched off in Settings, each weighs as a program again at once', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const session = await taskSession(page, host, 'weight');
  const start = session.start;
  /** The nice value of the reporter's session group, as its last line says it. */
  const reported = async (id: string): Promise<number | null> => {
    const last = [...(await session.read(id)).text.matchAll(/nice (\d+)/g)].at(-1);
    return last ? Number(last[1]) : null;
  };
  // Two busy tasks: one only works, the other works and says its group's weight every few
  // hundred milliseconds (a file only Linux has; elsewhere it says nothing and only the switch is checked).
  const busy = await start('while :; do :; done');
  const reporter = await start(
    'while :; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; cat /proc/self/autogroup 2>/dev/null; done',
  );
  const weighed = process.platform === 'linux' && sessionGroupsApply('self');
  if (weighed) await expect.poll(() => reported(reporter), { timeout: 15_000 }).toBe(sharedNice(2));

  await openSettings(page, host.url);
  const row = page.locator('[data-testid="tunable"][data-id="background.shareTaskCpu"]');
  await expect(row.getByTestId('tunable-value')).toHaveText('on');
  await expect(row.getByTestId('tunable-source')).toHaveText('default');
  await row.getByTestId('tunable-change').click();
  await row.getByTestId('tunable-input').selectOption('off');
  await row.getByTestId('tunable-save').click();
  await expect(row.getByTestId('tunable-value')).toHaveText('off');
  await expect(row.getByTestId('tunable-source')).toHaveText('settings.json');
  expect(settingsFile(host.dataDir).background).toEqual({ shareTaskCpu: false });
  await row.scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'settings-share-task-cpu');

  // The running tasks are weighed again within a second or so, no restart.
  if (weighed) await expect.poll(() => reported(reporter), { timeout: 15_000 }).toBe(0);
  for (const id of [busy, reporter]) await session.stop(id);
});
