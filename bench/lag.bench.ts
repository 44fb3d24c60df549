/**
 * `npm run bench`, after `npm run build`: the host's event loop under 50 chatty tasks (issue #18).
 * A real built host with a Chromium page on the session (the tasks panel, live) and a second page
 * on one task's terminal; 50 tasks print long lines, short lines and `\r` redraws for 20 s. Measured:
 * the host's event-loop lag from inside it (perf_hooks, bench/lag-probe.mjs), `/api/info` latency
 * from this process every 50 ms, and the host's RSS each second. The baseline is the same host,
 * page attached, with no task, for 5 s. Not part of `npm test`: timings are not assertions.
 *
 * The tasks run at Drover's defaults: their own nice value 0 (`background.taskNice`), and on Linux
 * the busy ones sharing one program's weight (`background.shareTaskCpu`, process/task-weight.ts).
 * A second load, printed but not recorded, runs them with the sharing off, each task weighed as a
 * program of its own: what the sharing buys on this machine. `LAG_TASK_NICE=N` and
 * `LAG_SHARE_CPU=0|1` run one load with those settings instead.
 *
 * `LAG_CPU_PROF=<dir>` writes the host's CPU profile there (read it with bench/cpuprofile-top.ts).
 * `LAG_HOST_JS=<file>` runs another build of the host (a copy of `out/main` kept beside this
 * checkout, so it finds the same `node_modules` and renderer), to compare a change in the same harness.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../playwright.config.js';
import { BENCH_TOKEN, startLagHost, type LagHost, type LagReport } from './lag-host.js';
import { recordFigure, type Figure } from './report.js';

const TASKS = 50;
const KINDS = ['long', 'short', 'progress'] as const;
const LOAD_SECONDS = 20;
const IDLE_SECONDS = 5;
/** Memory is compared from this second of the load to its end. */
const MEMORY_FROM_SECOND = 5;
/** Tasks print this long, so they outlast the setup before the window and the window itself. */
const TASK_SECONDS = LOAD_SECONDS + 40;
const PROBE_EVERY_MS = 50;
/** The printers' mix comes to about 3.3 MB/s; far less means they were starved or failed. */
const MIN_PRINTED_BYTES_PER_SECOND = 1_000_000;
const TARGET_LAG_P99_MS = 20;
const TARGET_INFO_P99_MS = 50;
const TARGET_MEMORY_CHANGE = 0.2;

const printer = resolve(import.meta.dirname, 'lag-printer.mjs');
const fmt = (n: number, digits = 1) => n.toFixed(digits);
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? NaN;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The part of `GET /api/sessions/{id}/background-tasks` the bench reads. */
interface TaskList {
  running_count: number;
}

interface Window {
  lag: LagReport;
  info: number[];
  infoFailures: number;
  /** RSS in MB with the ms since the window began. */
  rss: { atMs: number; mb: number }[];
  /** The host's CPU time over the window's wall time (1 = one core, all the time). */
  cpuShare: number;
  /** The machine's 1-minute load average at the end: lag here is partly other processes' doing. */
  load: number;
}

/** Probes `/api/info` every PROBE_EVERY_MS and samples RSS every second, for `seconds`; the lag period matches. */
async function measureWindow(host: LagHost, seconds: number): Promise<Window> {
  await host.markLag(); // what came before the window is not counted
  const started = performance.now();
  const cpuBefore = host.cpuSeconds();
  const endAt = started + seconds * 1000;
  const rss = [{ atMs: 0, mb: host.rssMb() }];
  const sampler = setInterval(() => rss.push({ atMs: performance.now() - started, mb: host.rssMb() }), 1000);
  const info: number[] = [];
  let infoFailures = 0;
  while (performance.now() < endAt) {
    const sent = performance.now();
    try {
      const res = await fetch(`${host.origin}/api/info`, { headers: { Authorization: `Bearer ${BENCH_TOKEN}` } });
      await res.arrayBuffer();
      if (res.ok) info.push(performance.now() - sent);
      else infoFailures++;
    } catch {
      infoFailures++;
    }
    await sleep(Math.max(0, sent + PROBE_EVERY_MS - performance.now()));
  }
  clearInterval(sampler);
  const elapsedMs = performance.now() - started;
  rss.push({ atMs: elapsedMs, mb: host.rssMb() });
  const cpuShare = (host.cpuSeconds() - cpuBefore) / (elapsedMs / 1000);
  const lag = await host.markLag();
  return { lag, info, infoFailures, rss, cpuShare, load: loadavg()[0]! };
}

async function startTasks(host: LagHost, sessionId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const command = `${shellQuote(process.execPath)} ${shellQuote(printer)} ${kind} ${TASK_SECONDS} ${i}`;
    const row = await host.call<{ id: string }>('POST', `/sessions/${sessionId}/background-tasks`, {
      command,
      timeout_seconds: TASK_SECONDS + 60,
    });
    ids.push(row.id);
  }
  for (let i = 0; i < 200; i++) {
    const list = await host.call<TaskList>('GET', `/sessions/${sessionId}/background-tasks`);
    if (list.running_count === TASKS) return ids;
    await sleep(100);
  }
  throw new Error(`not all ${TASKS} tasks were running after 20 s`);
}

/** The tasks panel of the session: every task's card, live. */
async function openPanel(browser: Browser, host: LagHost, sessionId: string) {
  const page = await browser.newPage();
  await page.goto(`${host.url}#/s/${sessionId}/tasks`);
  await page.getByTestId('tasks-panel').waitFor({ timeout: 30_000 });
  return page;
}

function figure(name: string, value: number, unit: string, baseline: number, target: string, met: boolean): Figure {
  return { name, value, unit, baseline, ratio: baseline > 0 ? value / baseline : null, target, met };
}

const lagLine = (r: LagReport) =>
  `lag p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms (${r.samples} samples)`;
const infoLine = (w: Window) =>
  `/api/info p50 ${fmt(quantile(w.info, 0.5))} ms, p99 ${fmt(quantile(w.info, 0.99))} ms (${w.info.length} answered, ${w.infoFailures} failed)`;
const cpuLine = (w: Window) =>
  `host CPU ${fmt(w.cpuShare * 100, 0)} % of a core, machine load ${fmt(w.load)} on ${availableParallelism()} cores`;

/** The `background` settings of a load other than Drover's defaults. */
interface LoadSettings {
  taskNice?: number;
  shareTaskCpu?: boolean;
}

/** LAG_TASK_NICE and LAG_SHARE_CPU, checked; null when neither is given. */
function settingsFromEnvironment(): LoadSettings | null {
  const { LAG_TASK_NICE: nice, LAG_SHARE_CPU: share } = process.env;
  const settings: LoadSettings = {};
  if (nice !== undefined && nice !== '') {
    const value = Number(nice);
    if (!(Number.isInteger(value) && value >= 0 && value <= 19))
      throw new Error(`LAG_TASK_NICE must be a whole number from 0 to 19, not ${nice}`);
    settings.taskNice = value;
  }
  if (share !== undefined && share !== '') {
    if (share !== '0' && share !== '1') throw new Error(`LAG_SHARE_CPU must be 0 or 1, not ${share}`);
    settings.shareTaskCpu = share === '1';
  }
  return Object.keys(settings).length > 0 ? settings : null;
}

/**
 * One host under the load. `settings`: its `background` settings other than the defaults; `suffix`
 * goes after each figure's name; `record`: whether the figures go to the report (else printed only).
 */
async function measureLoad(settings: LoadSettings, suffix: string, record: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'drover-bench-lag-'));
  const dataDir = join(dir, 'data');
  // One session runs all 50 at once (the defaults cap a session at 5 and Drover at 20).
  mkdirSync(dataDir);
  writeFileSync(
    join(dataDir, 'settings.json'),
    JSON.stringify({
      background: { maxConcurrent: TASKS, maxConcurrentTotal: TASKS, ...settings },
    }),
  );
  const profileDir = process.env.LAG_CPU_PROF;
  const host = await startLagHost(dataDir, {
    nodeArgs: profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)] : [],
    ...(process.env.LAG_HOST_JS ? { hostJs: resolve(process.env.LAG_HOST_JS) } : {}),
  });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    const session = await host.call<{ id: string }>('POST', '/sessions', { title: 'lag bench' });
    const panel = await openPanel(browser, host, session.id);
    await sleep(1000); // the page's first loads settle before the baseline
    const idle = await measureWindow(host, IDLE_SECONDS);

    const ids = await startTasks(host, session.id);
    await panel
      .locator('[data-testid="task-card"][data-status="running"]')
      .nth(TASKS - 1)
      .waitFor({ timeout: 30_000 });
    const terminal = await browser.newPage();
    await terminal.goto(`${host.url}#/s/${session.id}/tasks/${ids[0]}`);
    await terminal.getByTestId('task-terminal').waitFor({ timeout: 30_000 });
    const bytesBefore = host.logBytes();
    const load = await measureWindow(host, LOAD_SECONDS);
    const printed = host.logBytes() - bytesBefore;
    const stillRunning = (await host.call<TaskList>('GET', `/sessions/${session.id}/background-tasks`)).running_count;
    // A load that did not hold measures nothing: say so rather than record an easy figure.
    if (stillRunning !== TASKS || printed < MIN_PRINTED_BYTES_PER_SECOND * LOAD_SECONDS) {
      throw new Error(`the load did not hold: ${stillRunning} of ${TASKS} tasks running, ${printed} bytes printed`);
    }

    const from = load.rss.find((s) => s.atMs >= MEMORY_FROM_SECOND * 1000)!;
    const to = load.rss.at(-1)!;
    const memoryRatio = to.mb / from.mb;
    const idleP99 = quantile(idle.info, 0.99);
    const loadP99 = quantile(load.info, 0.99);
    const keep = record ? recordFigure : () => {};
    keep(
      figure(
        `host event-loop lag p99, ${TASKS} chatty tasks${suffix}`,
        load.lag.p99,
        'ms',
        idle.lag.p99,
        `p99 < ${TARGET_LAG_P99_MS} ms`,
        load.lag.p99 < TARGET_LAG_P99_MS,
      ),
    );
    keep(
      figure(
        `/api/info p99, ${TASKS} chatty tasks${suffix}`,
        loadP99,
        'ms',
        idleP99,
        `p99 < ${TARGET_INFO_P99_MS} ms`,
        loadP99 < TARGET_INFO_P99_MS,
      ),
    );
    keep(
      figure(
        `host memory second ${MEMORY_FROM_SECOND} to ${LOAD_SECONDS}, ${TASKS} chatty tasks${suffix}`,
        to.mb,
        'MB',
        from.mb,
        `ratio within 1 ± ${TARGET_MEMORY_CHANGE}`,
        Math.abs(memoryRatio - 1) <= TARGET_MEMORY_CHANGE,
      ),
    );
    console.log(
      `idle host (page attached, no task, ${IDLE_SECONDS} s): ${lagLine(idle.lag)}; ${infoLine(idle)}; ${cpuLine(idle)}; ` +
        `RSS ${fmt(idle.rss[0]!.mb)} -> ${fmt(idle.rss.at(-1)!.mb)} MB`,
    );
    console.log(
      `${TASKS} chatty tasks${suffix} (${LOAD_SECONDS} s, ${fmt(printed / 1e6 / LOAD_SECONDS, 2)} MB/s printed in all, ` +
        `${stillRunning} still running at the end): ${lagLine(load.lag)} (target p99 < ${TARGET_LAG_P99_MS} ms); ` +
        `${infoLine(load)} (target p99 < ${TARGET_INFO_P99_MS} ms); RSS at ${fmt(from.atMs / 1000, 0)} s ${fmt(from.mb)} MB, ` +
        `at ${fmt(to.atMs / 1000, 0)} s ${fmt(to.mb)} MB, ratio ${fmt(memoryRatio, 2)} (target within 1 ± ${TARGET_MEMORY_CHANGE}); ${cpuLine(load)}`,
    );
  } finally {
    await browser.close();
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const chosen = settingsFromEnvironment();
  if (chosen !== null) return measureLoad(chosen, ` with ${JSON.stringify(chosen)}`, true);
  // Drover's defaults, then each task weighed as a program of its own: what the sharing buys here.
  await measureLoad({}, '', true);
  await measureLoad(
    { shareTaskCpu: false },
    ' with the sharing off (background.shareTaskCpu: false), not recorded',
    false,
  );
}

await main();
