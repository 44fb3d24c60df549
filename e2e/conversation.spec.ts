import { createServer, type AddressInfo } from 'node:net';
import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';
import { shoot } from './screens.js';
import type { RunningHost } from './host.js';
import type { Page } from '@playwright/test';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

async function connect(page: Page, host: RunningHost, baseUrl: string): Promise<void> {
  const answer = await page.request.put(`${host.origin}/api/settings`, {
    headers: { Authorization: `Bearer ${host.token}` },
    data: { provider: { kind: 'openai-compatible', base_url: baseUrl, model: 'fake-model', api_key: 'k' } },
  });
  expect(answer.ok()).toBe(true);
}

/** A port nothing listens on: a model server that died. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const MARKDOWN_REPLY = [
  'Here is the fix, with `npm test` to check it:',
  '',
  '```ts',
  'export function add(a: number, b: number): number {',
  '  return a + b; // sum',
  '}',
  '```',
  '',
  '- first point',
  '- second point with **bold**',
  '',
  'See [the docs](https://example.com/docs) for more.',
  '',
  'Raw HTML stays text: <img src=x onerror="window.__pwned = 1"> and <script>window.__pwned = 2</script>',
].join('\n');

test('a Markdown reply shows formatted and highlighted, runs no script, loads no image', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  await connect(page, host, model.baseUrl);
  model.enqueue({ text: MARKDOWN_REPLY });
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await page.getByTestId('composer-input').fill('Fix the adder');
  await page.getByTestId('composer-input').press('Enter');

  const reply = page.getByTestId('assistant-text').last();
  await expect(reply.locator('pre code')).toContainText('return a + b;');
  // Highlighted once shiki has loaded: coloured by class, never by inline style (the CSP refuses those).
  await expect(reply.locator('pre code .hl-token-keyword').first()).toHaveText('export');
  await expect(reply.locator('[style]')).toHaveCount(0);
  await expect(reply.locator('ul > li')).toHaveCount(2);
  await expect(reply.locator('p > code')).toHaveText('npm test');
  await expect(reply.locator('strong')).toHaveText('bold');
  const link = reply.getByRole('link', { name: 'the docs' });
  await expect(link).toHaveAttribute('href', 'https://example.com/docs');
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(reply).toContainText('<img src=x onerror="window.__pwned = 1">');
  await expect(reply).toContainText('<script>window.__pwned = 2</script>');
  await expect(page.locator('[data-testid="transcript"] img, [data-testid="transcript"] script')).toHaveCount(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  await shoot(page, testInfo, 'markdown-reply');

  // Reloaded, the settled reply comes rendered by the host (the page renders only one still
  // arriving): it shows exactly as the page rendered it, as safely.
  const live = await reply.innerHTML();
  await page.reload();
  const stored = page.getByTestId('assistant-text').last();
  await expect(stored.locator('pre code .hl-token-keyword').first()).toHaveText('export');
  expect(await stored.innerHTML()).toBe(live);
  await expect(page.locator('[data-testid="transcript"] img, [data-testid="transcript"] script')).toHaveCount(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
});

test('the sent text leaves the composer at Enter: what is typed next is a new draft, sent once', async ({
  page,
  host,
  pageProblems,
}) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  const input = page.getByTestId('composer-input');
  await input.focus();
  // No pause between Enter and the next keys: they arrive while the message is on its way.
  await page.keyboard.type('first message');
  await page.keyboard.press('Enter');
  await page.keyboard.type('second');
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveCount(1);
  await expect(input).toHaveValue('second');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveCount(2);
  await expect(input).toHaveValue('');
  await expect(page.locator('[data-testid="message"][data-role="user"] .text')).toHaveText(['first message', 'second']);
});

test('a dead model server: the retries are told, one error once, and Retry works once the server answers', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  test.setTimeout(90_000);
  void pageProblems;
  await connect(page, host, `http://127.0.0.1:${await deadPort()}/v1`);
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await page.getByTestId('composer-input').fill('Are you there?');
  await page.getByTestId('composer-input').press('Enter');

  const working = page.getByTestId('turn-working');
  // Each retry is told while it waits (2 s, then 4 s, then 8 s): a busy machine may see the first one late.
  await expect(working).toHaveText(/Model server not answering — retrying \([1-3] of 3\)…/);
  await expect(working).toHaveText('Model server not answering — retrying (3 of 3)…', { timeout: 20_000 });
  // Backoff 2 s, 4 s, 8 s: the turn gives up after about 14 s.
  const retry = page.getByTestId('turn-retry');
  await expect(retry).toBeVisible({ timeout: 40_000 });
  await expect(working).toBeHidden();
  const notes = page.locator('[data-testid="message"][data-role="system"]');
  await expect(notes).toHaveCount(1);
  const note = (await notes.textContent()) ?? '';
  expect(note).toContain('is not answering');
  expect(note).toContain('(tried 4 times)');
  expect(note.match(/ECONNREFUSED/g)).toHaveLength(1);
  await shoot(page, testInfo, 'failed-turn');

  // The server is back: Retry runs the same turn again, with no second message from the person.
  await connect(page, host, model.baseUrl);
  model.enqueue({ text: 'Yes, here now.' });
  await retry.click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Yes, here now.');
  await expect(retry).toBeHidden();
  await expect(notes).toHaveCount(1);
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveCount(1);
  expect(model.requests[0]!.transcript).toContain('Are you there?');
});

test('the ! and & key chips are the shared Kbd part, apart from the words around them', async ({
  page,
  host,
  pageProblems,
}) => {
  void pageProblems;
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  const chips = page.locator('.hint kbd');
  await expect(chips.filter({ hasText: /^!$/ })).toHaveClass(/\bkbd\b/);
  await expect(chips.filter({ hasText: /^&$/ })).toHaveClass(/\bkbd\b/);
  // The gap from each chip's frame to the next word's first letter, in pixels.
  const gaps = await chips.evaluateAll((elements) =>
    elements.map((chip) => {
      const next = chip.nextSibling;
      const range = chip.ownerDocument.createRange();
      const text = next?.textContent ?? '';
      const start = text.search(/\S/);
      if (!next || start < 0) return null;
      range.setStart(next, start);
      range.setEnd(next, start + 1);
      return range.getBoundingClientRect().left - chip.getBoundingClientRect().right;
    }),
  );
  for (const gap of gaps.filter((g): g is number => g !== null)) expect(gap).toBeGreaterThanOrEqual(4);
});
