/**
 * The tasks panel with 10,000 finished tasks stored: time from opening "Finished" to its
 * first rows on screen, against the same with 10 tasks, in the same run (Chromium, built host).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../playwright.config.js';
import { startHost } from '../e2e/host.js';
import { seedBigSession } from '../e2e/seed-session.js';
import { recordFigure } from './report.js';

const ROUNDS = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(count: number): Promise<number[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-panel-bench-'));
  seedBigSession(dataDir, { session: 'benchsession', finished: count, messages: 1, lastText: 'bench' });
  const host = await startHost({ dataDir });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  const times: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh page each round: the list starts closed, nothing cached in the page.
      const page = await browser.newPage();
      await page.goto(`${host.url}#/s/benchsession/tasks`);
      const toggle = page.getByTestId('finished-toggle');
      await toggle.waitFor();
      // Loaded first (the list arrives over the socket); what is timed is opening it.
      await toggle.filter({ hasText: `Finished ${count}` }).waitFor({ timeout: 60_000 });
      const started = Date.now();
      await toggle.click();
      await page
        .getByTestId('finished-row')
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async (error) => {
          await page.screenshot({ path: '/tmp/panel-bench.png' });
          throw error;
        });
      times.push(Date.now() - started);
      await page.close();
    }
  } finally {
    await browser.close();
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return times;
}

const small = await measure(10);
const large = await measure(10_000);
recordFigure({
  name: 'tasks panel, open Finished with 10,000 tasks',
  value: median(large),
  unit: 'ms',
  baseline: median(small),
  ratio: median(large) / Math.max(1, median(small)),
  target: '< 1000 ms',
  met: median(large) < 1000,
});
console.log(
  `tasks panel, open Finished (median of ${ROUNDS}): 10,000 tasks ${median(large)} ms, 10 tasks ${median(small)} ms, ratio ${(median(large) / Math.max(1, median(small))).toFixed(2)} (target: under 1 s)`,
);
