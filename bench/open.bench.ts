/**
 * Opening a big session: 10,000 finished tasks, 2,000 messages and a few running tasks stored,
 * timed in Chromium against the built host from navigation to the first screen being right (the
 * transcript's last message visible, the panel's Finished count and its running cards shown),
 * against the same with an empty session (no finished task, one message, the same running tasks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config.js';
import { startHost, type RunningHost } from '../e2e/host.js';
import { seedBigSession } from '../e2e/seed-session.js';
import { recordFigure } from './report.js';

/** Nine fresh pages a session: one page load swings by 50 ms or more on a shared machine. */
const ROUNDS = 9;
const RUNNING = 3;
const TARGET_MS = 300;
const LAST_TEXT = 'The last word of the bench session.';
const SESSION = 'benchsession';
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A few live tasks, started through REST so they run in the host. */
async function startRunning(host: RunningHost): Promise<void> {
  for (let i = 0; i < RUNNING; i++) {
    const response = await fetch(`${host.origin}/api/sessions/${SESSION}/background-tasks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}` },
      body: JSON.stringify({ command: `sleep 600 # bench runner ${i}` }),
    });
    if (response.status !== 201) throw new Error(`could not start a task: ${await response.text()}`);
  }
}

/** The little of the DOM the page's test reads (the bench compiles without the DOM's types). */
interface PageNode {
  textContent: string | null;
  getBoundingClientRect(): { top: number; bottom: number };
}
interface PageGlobals {
  document: {
    querySelectorAll(selector: string): ArrayLike<PageNode>;
    querySelector(selector: string): PageNode | null;
  };
  innerHeight: number;
  performance: { now(): number };
}

/**
 * The page's own test (it runs in the page): the last message on screen, the running cards and
 * the Finished count shown; answers performance.now() (from the navigation's start) once true.
 */
function firstScreenRight({
  last,
  finished,
  running,
}: {
  last: string;
  finished: number;
  running: number;
}): number | false {
  const page = globalThis as unknown as PageGlobals;
  const rows = page.document.querySelectorAll('[data-testid="transcript"] li');
  const lastRow = rows[rows.length - 1];
  if (!lastRow?.textContent?.includes(last)) return false;
  const box = lastRow.getBoundingClientRect();
  if (box.bottom <= 0 || box.top >= page.innerHeight) return false;
  if (page.document.querySelectorAll('[data-testid="task-card"]').length !== running) return false;
  const toggle = page.document.querySelector('[data-testid="finished-toggle"]');
  if (finished === 0 ? toggle !== null : !toggle?.textContent?.includes(`Finished ${finished}`)) return false;
  return page.performance.now();
}

/** Milliseconds from navigation to the first screen being right, one fresh page per round. */
async function measure(browser: Browser, finished: number, messages: number): Promise<number[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-open-bench-'));
  seedBigSession(dataDir, { session: SESSION, finished, messages, lastText: LAST_TEXT });
  const host = await startHost({ dataDir });
  const times: number[] = [];
  try {
    await startRunning(host);
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${host.url}#/s/${SESSION}/tasks`);
      // performance.now() counts from the navigation's start: the figure is what the page took.
      const elapsed = await page
        .waitForFunction(
          firstScreenRight,
          { last: LAST_TEXT, finished, running: RUNNING },
          { polling: 'raf', timeout: 60_000 },
        )
        .catch(async (error: unknown) => {
          await page.screenshot({ path: '/tmp/open-bench.png' });
          throw error;
        });
      times.push(Math.round((await elapsed.jsonValue()) as number));
      await context.close();
    }
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return times;
}

const browser = await chromium.launch({
  executablePath: process.env.DROVER_CHROMIUM ?? '/usr/bin/chromium',
  args: CHROMIUM_ARGS,
});
try {
  const empty = await measure(browser, 0, 1);
  const big = await measure(browser, 10_000, 2_000);
  recordFigure({
    name: 'open a session with 10,000 finished tasks and 2,000 messages',
    value: median(big),
    unit: 'ms',
    baseline: median(empty),
    ratio: median(big) / Math.max(1, median(empty)),
    target: `< ${TARGET_MS} ms`,
    met: median(big) < TARGET_MS,
  });
  console.log(
    `open a big session (median of ${ROUNDS}, from navigation): 10,000 tasks and 2,000 messages ${median(big)} ms [${big.join(', ')}], empty session ${median(empty)} ms [${empty.join(', ')}], ratio ${(median(big) / Math.max(1, median(empty))).toFixed(2)} (target: under ${TARGET_MS} ms)`,
  );
} finally {
  await browser.close();
}
