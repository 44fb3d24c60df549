/**
 * Opening a big session: 10,000 finished tasks, 2,000 messages and a few running tasks stored,
 * timed in Chromium against the built host from navigation to the first screen being right (the
 * transcript's last message visible, the panel's Finished count and its running cards shown),
 * against the same with an empty session (no finished task, one message, the same running tasks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../playwright.config.js';
import { startBackgroundTask, startHost, type RunningHost } from '../e2e/host.js';
import { seedBigSession } from '../e2e/seed-session.js';
import { recordFigure } from './report.js';

/** Nine loads each way: one page load swings by 50 ms or more on a shared machine. */
const ROUNDS = 9;
const RUNNING = 3;
const TARGET_MS = 300;
const LAST_TEXT = 'The last word of the bench session.';
const SESSION = 'benchsession';
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A few live tasks, started through REST so they run in the host. */
async function startRunning(host: RunningHost): Promise<void> {
  for (let i = 0; i < RUNNING; i++) await startBackgroundTask(host, SESSION, `sleep 600 # bench runner ${i}`);
}

/** The little of the DOM the page's test reads (the bench compiles without the DOM's types). */
interface PageNode {
  textContent: string | null;
  getBoundingClientRect(): { top: number; bottom: number };
}
interface PageGlobals {
  document: {
    readyState: string;
    querySelectorAll(selector: string): ArrayLike<PageNode>;
    querySelector(selector: string): PageNode | null;
  };
  location: { protocol: string };
  innerHeight: number;
  performance: { now(): number };
  requestAnimationFrame(callback: () => void): void;
  console: { log(text: string): void };
}

/** What the page says on its console once its first screen is right, with performance.now() then. */
const FIRST_SCREEN = 'drover-bench-first-screen';

/**
 * The page's own test, installed before any of the page's scripts and run at every frame: the last
 * message on screen, the running cards and the Finished count shown. Once true it logs
 * performance.now() (from the navigation's start) on the console. It is a script of the page
 * itself, so the figure holds only the app's work: waiting with Playwright's waitForFunction put
 * Playwright's own injected script (about 20 ms to compile) on the page's main thread mid-load.
 * On the blank page (`blank`) the test is its one line being on screen.
 */
function watchFirstScreen({
  last,
  finished,
  running,
  said,
  blank,
}: {
  last: string;
  finished: number;
  running: number;
  said: string;
  blank: boolean;
}): void {
  const page = globalThis as unknown as PageGlobals;
  // The blank page between loads runs this too.
  if (page.location.protocol !== 'http:') return;
  const right = (): boolean => {
    if (page.document.readyState === 'loading') return false;
    if (blank) {
      const line = page.document.querySelector('#line');
      const box = line?.getBoundingClientRect();
      return !!line?.textContent?.includes(last) && !!box && box.bottom > 0 && box.top < page.innerHeight;
    }
    const rows = page.document.querySelectorAll('[data-testid="transcript"] li');
    const lastRow = rows[rows.length - 1];
    if (!lastRow?.textContent?.includes(last)) return false;
    const box = lastRow.getBoundingClientRect();
    if (box.bottom <= 0 || box.top >= page.innerHeight) return false;
    if (page.document.querySelectorAll('[data-testid="task-card"]').length !== running) return false;
    const toggle = page.document.querySelector('[data-testid="finished-toggle"]');
    return finished === 0 ? toggle === null : !!toggle?.textContent?.includes(`Finished ${finished}`);
  };
  const tick = (): void => {
    if (right()) page.console.log(`${said} ${page.performance.now()}`);
    else page.requestAnimationFrame(tick);
  };
  page.requestAnimationFrame(tick);
}

/** How a page meets the host's files: never seen (a new profile), or seen before (its caches warm). */
type Visit = 'first' | 'again';

/** One load in `page` (whose watcher is installed), a new document: milliseconds from navigation to the first screen being right. */
async function timeLoad(page: Page, url: string): Promise<number> {
  // A page that is open already would take the same URL as a move within it: it is a new load each time.
  await page.goto('about:blank');
  const said = page.waitForEvent('console', {
    predicate: (message) => message.text().startsWith(`${FIRST_SCREEN} `),
    timeout: 60_000,
  });
  await page.goto(url);
  const message = await said.catch(async (error: unknown) => {
    await page.screenshot({ path: '/tmp/open-bench.png' });
    throw error;
  });
  return Math.round(Number(message.text().slice(FIRST_SCREEN.length + 1)));
}

/** A page of `context` that watches for its first screen on every load. */
async function watchingPage(context: BrowserContext, finished: number, blank = false): Promise<Page> {
  const page = await context.newPage();
  const args = { last: LAST_TEXT, finished, running: RUNNING, said: FIRST_SCREEN, blank };
  // As source: tsx names the inner functions through a helper of its own (__name), which the page lacks.
  await page.addInitScript({
    content: `(() => { const __name = (target) => target; (${watchFirstScreen.toString()})(${JSON.stringify(args)}); })();`,
  });
  return page;
}

/**
 * Milliseconds from navigation to the first screen being right, ROUNDS loads each way: `first`
 * in a fresh browser context every round (nothing cached: the very first open), `again` in one
 * context that opened the session twice before (Chromium's HTTP cache holds the page's files and
 * its code cache their compiled code, as for a bookmarked tab, and as the desktop app keeps
 * them between starts through its scheme's codeCache privilege).
 */
async function measure(browser: Browser, finished: number, messages: number): Promise<Record<Visit, number[]>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-open-bench-'));
  seedBigSession(dataDir, { session: SESSION, finished, messages, lastText: LAST_TEXT });
  const host = await startHost({ dataDir });
  const url = `${host.url}#/s/${SESSION}/tasks`;
  const times: Record<Visit, number[]> = { first: [], again: [] };
  const viewport = { viewport: { width: 1400, height: 900 } };
  try {
    await startRunning(host);
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext(viewport);
      times.first.push(await timeLoad(await watchingPage(context, finished), url));
      await context.close();
    }
    const context = await browser.newContext(viewport);
    try {
      const page = await watchingPage(context, finished);
      // Chromium keeps a script's compiled code from its second load on, and uses it from the third.
      for (let warm = 0; warm < 2; warm++) await timeLoad(page, url);
      for (let round = 0; round < ROUNDS; round++) times.again.push(await timeLoad(page, url));
    } finally {
      await context.close();
    }
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return times;
}

/** A page with nothing in it but one line of text, which its own script writes. */
const BLANK_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>blank</title></head>' +
  `<body><p id="line"></p><script>document.getElementById('line').textContent = ${JSON.stringify(LAST_TEXT)};</script></body></html>`;

/**
 * What any page costs this machine to open in a new profile: a blank page, timed as the session
 * is (a fresh context each round, from navigation to its line being on screen). Machines differ
 * by twice or more here (a new browser profile starts a new renderer process, whose memory the
 * kernel must map in), so the figure tells how much of the first open is the machine's.
 */
async function blankPageFloor(browser: Browser): Promise<number[]> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(BLANK_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const times: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      times.push(await timeLoad(await watchingPage(context, 0, true), url));
      await context.close();
    }
  } finally {
    server.close();
  }
  return times;
}

const browser = await chromium.launch(CHROMIUM_LAUNCH);
const WORDS: Record<Visit, string> = {
  first: 'first open, nothing cached',
  again: 'open again, caches warm',
};

try {
  const blank = await blankPageFloor(browser);
  const empty = await measure(browser, 0, 1);
  const big = await measure(browser, 10_000, 2_000);
  for (const visit of ['first', 'again'] as const) {
    const value = median(big[visit]);
    const baseline = median(empty[visit]);
    recordFigure({
      name: `open a session with 10,000 finished tasks and 2,000 messages (${WORDS[visit]})`,
      value,
      unit: 'ms',
      baseline,
      ratio: value / Math.max(1, baseline),
      target: `< ${TARGET_MS} ms`,
      met: value < TARGET_MS,
    });
    console.log(
      `open a big session, ${WORDS[visit]} (median of ${ROUNDS}, from navigation): 10,000 tasks and 2,000 messages ${value} ms [${big[visit].join(', ')}], empty session ${baseline} ms [${empty[visit].join(', ')}], ratio ${(value / Math.max(1, baseline)).toFixed(2)} (target: under ${TARGET_MS} ms)`,
    );
  }
  console.log(
    `a blank page, first open (median of ${ROUNDS}, this machine's floor for any page in a new profile): ${median(blank)} ms [${blank.join(', ')}]`,
  );
} finally {
  await browser.close();
}
