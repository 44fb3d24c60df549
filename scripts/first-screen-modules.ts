/**
 * Finds the app's modules that opening a session runs, and writes them to renderer/first-screen.json:
 * the build puts them in a chunk of their own that V8 compiles whole, on a background thread, as
 * it downloads (electron.vite.config.ts, firstScreenChunk). Run it after changing what the first
 * screen shows: `npm run first-screen`. It builds the page unminified (every module marked by a
 * comment with its path), opens a big session in Chromium against the built host, reads which
 * functions ran (V8's precise coverage), and builds the page again as usual.
 *
 * A module is on the first screen when a third of its code ran, or for a component when any of it
 * did (a mounted component runs its template and little else). A list that falls behind the code
 * costs speed, never correctness: a module missing from it is compiled as before, when first called.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../playwright.config.js';
import { removeDataDir, startBackgroundTask, startHost } from '../e2e/host.js';
import { seedBigSession } from '../e2e/seed-session.js';
import { FIRST_SCREEN_LIST, UNMINIFIED_ENV } from '../electron.vite.config.js';

const ASSETS = join('out', 'renderer', 'assets');
const SESSION = 'firstscreen';
const LAST_TEXT = 'The last word of the first-screen session.';
const RUNNING = 3;
/** A module whose executed share reaches this is on the first screen. */
const SHARE = 0.3;

function build(unminified: boolean): void {
  execFileSync('npx', ['electron-vite', 'build'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, [UNMINIFIED_ENV]: unminified ? '1' : '' },
  });
}

interface FunctionCoverage {
  ranges: { startOffset: number; endOffset: number; count: number }[];
}

/**
 * For each byte of the script, whether the innermost function around it ran. The script's own top
 * level (every module's top level) always runs once, when the chunk is evaluated, so it counts
 * as not run: what tells a module in use is its functions being called.
 */
function ranBytes(length: number, functions: FunctionCoverage[]): Uint8Array {
  const ran = new Uint8Array(length);
  // Outer functions first, so inner ones write over them.
  const outermostFirst = functions
    .map((fn) => fn.ranges[0]!)
    .filter((range) => !(range.startOffset === 0 && range.endOffset >= length))
    .sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  for (const range of outermostFirst) ran.fill(range.count > 0 ? 1 : 0, range.startOffset, range.endOffset);
  return ran;
}

/** Each module's byte span in an unminified chunk, which starts every module with `// <its path>`. */
function moduleSpans(code: string): { path: string; start: number; end: number }[] {
  // Virtual modules (`// \0name`) have spans too, but no file to name in the list.
  const marks = [...code.matchAll(/^\/\/ ((?:renderer|shared|node_modules)\/\S+|\\0\S+)$/gm)];
  return marks.map((mark, index) => ({
    path: mark[1]!,
    start: mark.index,
    end: marks[index + 1]?.index ?? code.length,
  }));
}

async function coverage(): Promise<{ url: string; functions: FunctionCoverage[] }[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-first-screen-'));
  seedBigSession(dataDir, { session: SESSION, finished: 10_000, messages: 2_000, lastText: LAST_TEXT });
  const host = await startHost({ dataDir });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    for (let i = 0; i < RUNNING; i++) await startBackgroundTask(host, SESSION, `sleep 600 # first screen ${i}`);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await page.goto(`${host.url}#/s/${SESSION}/tasks`);
    await page.waitForFunction(
      ({ last, running }) =>
        [...document.querySelectorAll('[data-testid="transcript"] li')].some((row) =>
          row.textContent?.includes(last),
        ) &&
        document.querySelectorAll('[data-testid="task-card"]').length === running &&
        !!document.querySelector('[data-testid="finished-toggle"]'),
      { last: LAST_TEXT, running: RUNNING },
      { timeout: 30_000 },
    );
    const { result } = await cdp.send('Profiler.takePreciseCoverage');
    return result;
  } finally {
    await browser.close();
    await host.stop();
    removeDataDir(dataDir);
  }
}

async function main(): Promise<void> {
  build(true);
  try {
    const scripts = await coverage();
    // The app's chunks: its entry's, and the one with the rest of what it imports as it loads.
    const apps = readdirSync(ASSETS).filter((file) => file.startsWith('app-main-') && file.endsWith('.js'));
    if (apps.length === 0) throw new Error(`no app chunk in ${ASSETS}`);
    const modules = apps
      .flatMap((app) => {
        const script = scripts.find((entry) => entry.url.endsWith(`/${app}`));
        if (!script) throw new Error(`the page did not load ${app}`);
        const code = readFileSync(join(ASSETS, app), 'utf8');
        const ran = ranBytes(code.length, script.functions);
        return moduleSpans(code).filter(({ path, start, end }) => {
          let count = 0;
          for (let i = start; i < end; i++) count += ran[i]!;
          return path.endsWith('.svelte') ? count > 0 : count >= SHARE * (end - start);
        });
      })
      .map(({ path }) => path)
      // The app's own entry is the chunk that stays; everything else is a candidate.
      .filter((path) => path !== 'renderer/src/app-main.ts' && !path.startsWith('\\0'))
      .sort();
    writeFileSync(FIRST_SCREEN_LIST, `${JSON.stringify(modules, null, 2)}\n`);
    console.log(`${FIRST_SCREEN_LIST}: ${modules.length} modules on the first screen`);
  } finally {
    // The page as it ships, cut by the new list (or the old one, when this failed).
    build(false);
  }
}

await main();
