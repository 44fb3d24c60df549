import type { Locator, Page, TestInfo } from '@playwright/test';
import { test, expect } from './fixtures.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from './fake-model/index.js';
import type { RunningHost } from './host.js';

let model: FakeModelServer;
test.beforeEach(async () => {
  model = await startOpenAiCompatibleServer();
});
test.afterEach(async () => {
  await model.close();
});

const ESC = '\u001b';
const RLO = '\u202e';

async function connectModel(page: Page, host: RunningHost): Promise<Record<string, string>> {
  const auth = { Authorization: `Bearer ${host.token}` };
  const saved = await page.request.put(`${host.origin}/api/settings`, {
    headers: auth,
    data: { provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k' } },
  });
  expect(saved.status()).toBe(200);
  return auth;
}

async function pendingRequests(
  page: Page,
  host: RunningHost,
  auth: Record<string, string>,
  sessionId: string,
): Promise<unknown[]> {
  const listed = await page.request.get(`${host.origin}/api/sessions/${sessionId}/permissions`, { headers: auth });
  expect(listed.status()).toBe(200);
  return ((await listed.json()) as { pending: unknown[] }).pending;
}

async function shoot(page: Page, testInfo: TestInfo, name: string, title: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(title, { path, contentType: 'image/png' });
}

/** The element's text without its tokens: what shows as plain, typed characters (⟨ and ⟩ are never plain there). */
async function plainText(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/⟨[^⟩]*⟩/g, '');
}

async function tokenCodes(locator: Locator): Promise<number[]> {
  const tokens = await locator.getByTestId('escape-token').all();
  return Promise.all(tokens.map(async (token) => Number(await token.getAttribute('data-code'))));
}

/** F6 to the request, Alt+R there once armed: the request is gone, the model hears the rejection, the row says so. */
async function rejectFromThePanel(
  page: Page,
  host: RunningHost,
  auth: Record<string, string>,
  sessionId: string,
  command: string,
): Promise<void> {
  const modal = page.getByTestId('permission-modal');
  await page.keyboard.press('F6');
  await expect(modal).toBeFocused();
  await expect(modal).toHaveAttribute('data-armed', 'true');
  await page.keyboard.press('Alt+r');
  await expect(modal).toBeHidden();
  expect(await pendingRequests(page, host, auth, sessionId)).toHaveLength(0);
  await model.waitForRequests(2, 15_000);
  expect(model.requests[1]!.transcript).toContain(`Not run: the person rejected \`${command}\``);
  const row = page.getByTestId('tool-row').last();
  await expect(row).toHaveAttribute('data-status', 'rejected');
  await expect(row.getByTestId('tool-status')).toHaveText('rejected');
}

test('a request arriving while the person types takes no keystroke: the message stays whole, plain and Alt letters answer nothing there, F6 then Alt+R rejects', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const auth = await connectModel(page, host);
  model.enqueue(
    { toolCalls: [{ name: 'run_command', args: { command: 'echo arrived mid-sentence | cat' } }] },
    { text: 'Understood, I will not run it.' },
  );
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const sessionId = new URL(page.url()).hash.split('/')[2]!;
  const input = page.getByTestId('composer-input');
  const modal = page.getByTestId('permission-modal');
  await expect(input).toBeFocused();

  // Typing at full speed; the turn is started from outside (another client) mid-sentence.
  let typed = 'please look at this, and answer properly: ';
  await page.keyboard.type(typed);
  const posted = await page.request.post(`${host.origin}/api/sessions/${sessionId}/messages`, {
    headers: auth,
    data: { text: 'run it' },
  });
  expect(posted.status()).toBe(201);
  // Keep typing until the request shows, however long the model takes on a busy machine.
  const chunk = 'press a, s, p or r as you type; ';
  for (const deadline = Date.now() + 30_000; !(await modal.isVisible()) && Date.now() < deadline;) {
    await page.keyboard.type(chunk);
    typed += chunk;
  }
  await expect(modal).toBeVisible();
  const after = 'and after it showed: a s p r A S P R, sparse prose, every letter kept.';
  await page.keyboard.type(after);
  typed += after;

  await expect(input).toHaveValue(typed);
  await expect(input).toBeFocused();
  expect(await pendingRequests(page, host, auth, sessionId)).toHaveLength(1);
  await expect(page.getByTestId('tool-row').last()).toHaveAttribute('data-status', 'waiting');
  await expect(page.getByTestId('tool-row').last().getByTestId('tool-status')).toHaveText('waiting for your answer');

  // Once armed, plain letters still only type: the old single-letter shortcuts are gone.
  const reject = modal.getByTestId('permission-reject');
  await expect(reject).toBeEnabled();
  await expect(modal).toHaveAttribute('data-armed', 'true');
  await page.keyboard.press('a');
  await page.keyboard.press('s');
  await page.keyboard.press('p');
  await page.keyboard.press('r');
  typed += 'aspr';
  await expect(input).toHaveValue(typed);
  await expect(modal).toBeVisible();
  expect(await pendingRequests(page, host, auth, sessionId)).toHaveLength(1);
  expect(model.requests).toHaveLength(1);
  await shoot(page, testInfo, 'request-while-typing', 'request shown while typing (focus stays in the composer)');

  // Alt+R typed in the composer is the composer's: it answers nothing.
  await expect(modal).toHaveAttribute('data-armed', 'true');
  await page.keyboard.press('Alt+r');
  await expect(input).toBeFocused();
  await expect(modal).toHaveAttribute('data-armed', 'true');
  expect(await pendingRequests(page, host, auth, sessionId)).toHaveLength(1);

  // F6 goes to the request; Alt+R there, once armed, rejects it; the composer gets its focus back with its text.
  await rejectFromThePanel(page, host, auth, sessionId, 'echo arrived mid-sentence | cat');
  await expect(input).toHaveValue(typed);
  await expect(input).toBeFocused();
});

/** Starts a session whose model asks to run `command`, and waits for the request with the focus in the composer. */
async function requestShown(
  page: Page,
  host: RunningHost,
  command: string,
): Promise<{ auth: Record<string, string>; sessionId: string }> {
  const auth = await connectModel(page, host);
  model.enqueue(
    { toolCalls: [{ name: 'run_command', args: { command } }] },
    { text: 'Understood, I will not run it.' },
  );
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const sessionId = new URL(page.url()).hash.split('/')[2]!;
  const input = page.getByTestId('composer-input');
  await input.fill('run it');
  await input.press('Enter');
  await expect(page.getByTestId('permission-modal')).toBeVisible();
  await expect(input).toBeFocused();
  return { auth, sessionId };
}

/**
 * What macOS Option with a letter sends: a keydown whose key is the character the layout
 * typed (Option+S is "ß" on US, "ś" on Polish Pro), on the letter's position, with Alt held,
 * and the character itself as the text that goes into the field.
 */
async function typeOptionCharacter(
  page: Page,
  character: string,
  code: string,
  windowsVirtualKeyCode: number,
): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const common = { modifiers: 1, key: character, code, windowsVirtualKeyCode };
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', ...common, text: character, unmodifiedText: character });
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...common });
  await cdp.detach();
}

test('Option and Alt letters typed into the composer while a request is shown go to the composer and answer nothing', async ({
  page,
  host,
  pageProblems,
}) => {
  void pageProblems;
  const { auth, sessionId } = await requestShown(page, host, 'echo option keys | cat');
  const input = page.getByTestId('composer-input');
  const modal = page.getByTestId('permission-modal');
  await input.fill('');
  // Wait for the arming each time: a key typed while disarmed would prove nothing.
  const option: [string, string, number][] = [
    ['ß', 'KeyS', 83],
    ['ś', 'KeyS', 83],
    ['å', 'KeyA', 65],
    ['π', 'KeyP', 80],
    ['®', 'KeyR', 82],
    ['©', 'KeyG', 71],
  ];
  for (const [character, code, keyCode] of option) {
    await expect(modal).toHaveAttribute('data-armed', 'true');
    await typeOptionCharacter(page, character, code, keyCode);
  }
  await expect(input).toHaveValue('ßśåπ®©');
  for (const chord of ['Alt+a', 'Alt+s', 'Alt+p', 'Alt+r', 'Alt+g']) {
    await expect(modal).toHaveAttribute('data-armed', 'true');
    await page.keyboard.press(chord);
  }
  await expect(input).toHaveValue('ßśåπ®©');
  await expect(input).toBeFocused();
  await expect(modal).toBeVisible();
  expect(await pendingRequests(page, host, auth, sessionId)).toHaveLength(1);
  expect(model.requests).toHaveLength(1);
});

test('F6 moves the focus from the composer to the request (Tab inside, Esc back to the composer), and there Alt+R rejects', async ({
  page,
  host,
  pageProblems,
}) => {
  void pageProblems;
  const { auth, sessionId } = await requestShown(page, host, 'echo chord | cat');
  const input = page.getByTestId('composer-input');
  const modal = page.getByTestId('permission-modal');
  await expect(modal.getByTestId('permission-keys')).toContainText('F6');
  await page.keyboard.press('F6');
  await expect(modal).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(modal.getByTestId('permission-allow')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(input).toBeFocused();
  expect(await pendingRequests(page, host, auth, sessionId)).toHaveLength(1);

  await rejectFromThePanel(page, host, auth, sessionId, 'echo chord | cat');
  await expect(input).toBeFocused();
});

test('a real ESC, newline and RLO show as tokens, distinct from the literal text \\x1b and \\n, in the dialog, the tool row and the tasks panel', async ({
  page,
  host,
  pageProblems,
}, testInfo) => {
  void pageProblems;
  const auth = await connectModel(page, host);
  // Literal backslash sequences in the printf format, then a real ESC, a real newline and an RLO that would flip "gpj.exe".
  const command = `printf '\\x1b[1m%s\\n' bold${ESC}[0m\necho ${RLO}gpj.exe`;
  model.enqueue({ toolCalls: [{ name: 'run_command', args: { command } }] }, { text: 'Understood.' });
  await page.goto(host.url);
  await page.getByTestId('new-session').click();
  await expect(page).toHaveURL(/#\/s\/[a-z0-9]+$/);
  const sessionId = new URL(page.url()).hash.split('/')[2]!;
  await page.getByTestId('composer-input').fill('show me');
  await page.getByTestId('composer-input').press('Enter');

  const modal = page.getByTestId('permission-modal');
  const shown = modal.getByTestId('permission-command');
  await expect(shown).toBeVisible();
  expect(await tokenCodes(shown)).toEqual([0x1b, 0x0a, 0x202e]);
  await expect(shown.getByTestId('escape-token')).toHaveText(['⟨ESC⟩', '⟨LF⟩', '⟨U+202E⟩']);
  await expect(shown.getByTestId('escape-token').first()).toHaveAttribute('title', 'escape, U+001B');
  await expect(shown.getByTestId('escape-token').last()).toHaveAttribute(
    'aria-label',
    'right-to-left override, U+202E',
  );
  // The literal \x1b and \n stay plain text; the real newline token also breaks the line.
  expect(await plainText(shown)).toBe(`printf '\\x1b[1m%s\\n' bold[0m\necho gpj.exe`);

  const row = page.getByTestId('tool-row').last();
  await expect(row).toHaveAttribute('data-status', 'waiting');
  expect(await tokenCodes(row.getByTestId('tool-command'))).toEqual([0x1b, 0x0a, 0x202e]);
  expect(await plainText(row.getByTestId('tool-command'))).toBe(`printf '\\x1b[1m%s\\n' bold[0mecho gpj.exe`);
  await expect(modal.getByTestId('permission-reject')).toBeEnabled();
  await shoot(page, testInfo, 'escapes-dialog', 'escapes in the dialog and the waiting row');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, testInfo, 'escapes-dialog-dark', 'escapes in the dialog and the waiting row (dark)');
  await page.emulateMedia({ colorScheme: 'light' });

  await modal.getByTestId('permission-reject').click();
  await expect(modal).toBeHidden();
  await expect(row).toHaveAttribute('data-status', 'rejected');
  await model.waitForRequests(2, 15_000);

  // The person reads their own words (the model was told, quoting the command, in its own); the
  // header and the Arguments show the command's characters as tokens, never the raw characters.
  await row.locator('button[aria-expanded]').first().click();
  await expect(row.getByTestId('tool-display')).toHaveText('Not run: you rejected it.');
  expect(model.requests[1]!.transcript).toContain('Not run: the person rejected');
  await expect(row.getByTestId('tool-result')).toHaveCount(0);
  expect(await tokenCodes(row.getByTestId('tool-command'))).toEqual([0x1b, 0x0a, 0x202e]);
  await row.getByTestId('tool-args-toggle').click();
  const args = row.getByTestId('tool-args');
  expect(await tokenCodes(args)).toEqual([0x1b, 0x0a, 0x202e]);
  // JSON keeps its own escaping of the backslashes; the real characters are tokens, not \u001b.
  await expect(args).toContainText(`"command": "printf '\\\\x1b[1m%s\\\\n' bold⟨ESC⟩[0m⟨LF⟩echo ⟨U+202E⟩gpj.exe"`);

  // The operator's own line with the same characters: its row, its task card or finished row, and the task view.
  const ran = await page.request.post(`${host.origin}/api/sessions/${sessionId}/shell`, {
    headers: auth,
    data: { command: `echo "${ESC}[0m" ok ${RLO}gpj.exe`, background: true },
  });
  expect(ran.status()).toBe(200);
  const shellRow = page.locator('[data-testid="tool-row"][data-task-id="bg_1"]').first();
  await expect(shellRow).toHaveAttribute('data-status', 'succeeded', { timeout: 15_000 });
  expect(await tokenCodes(shellRow.getByTestId('tool-command'))).toEqual([0x1b, 0x202e]);
  await shellRow.getByTestId('tool-open-in-tasks').click();
  const view = page.getByTestId('task-view');
  await expect(view).toBeVisible();
  expect(await tokenCodes(view.getByTestId('task-view-command'))).toEqual([0x1b, 0x202e]);
  await page.getByTestId('task-view-back').click();
  await page.getByTestId('finished-toggle').click();
  const finished = page.locator('[data-testid="finished-row"][data-task-id="bg_1"]');
  await expect(finished).toBeVisible();
  expect(await tokenCodes(finished.getByTestId('finished-row-command'))).toEqual([0x1b, 0x202e]);

  // Nowhere on the page does a raw RLO or ESC reach the text.
  const pageText = (await page.locator('body').textContent()) ?? '';
  expect(pageText).not.toContain(RLO);
  expect(pageText).not.toContain(ESC);
  await row.scrollIntoViewIfNeeded();
  await shoot(page, testInfo, 'escapes-row', 'escapes in the expanded row and the tasks panel');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, testInfo, 'escapes-row-dark', 'escapes in the expanded row and the tasks panel (dark)');
});
