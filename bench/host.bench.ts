/**
 * `npm run bench`: the host under a flood of reads (issue #12). A real host process; one client
 * floods `getTask` on a task with a 1 MB log while another asks `/api/info` in turn. Figures are
 * printed against a baseline measured in the same run: /api/info with no flood, and the host's
 * memory before the flood. Not part of `npm test`: timings are not assertions.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnHost, TEST_TOKEN, type SpawnedHost } from '../test/host/spawn-host.js';
import { ratioFigure, recordFigure } from './report.js';

const FLOOD_CALLS = 1_000;
const LOG_COMMAND = 'seq 1 160000'; // about 1 MB of output
const BASELINE_PROBES = 200;

const dir = mkdtempSync(join(tmpdir(), 'drover-bench-host-'));
const fmt = (n: number, digits = 1) => n.toFixed(digits);
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? NaN;
const rssMb = (pid: number) => {
  const found = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!found) throw new Error(`the host (pid ${pid}) has exited: it has no memory left to measure`);
  return Number(found[1]) / 1024;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probeInfo(base: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${base}/info`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`/api/info answered ${res.status}`);
  return performance.now() - t;
}

/**
 * The flooding client runs in a process of its own, so the prober's timings are not its event loop's.
 * `mode` http: every call on a connection of its own (what fetch does with 1,000 at once);
 * ws: every call as a frame on one WebSocket.
 */
function flood(
  base: string,
  path: string,
  mode: 'http' | 'ws',
): Promise<{ ms: number; outcomes: Record<string, number> }> {
  const script = `
    const [base, path, mode, calls, token] = process.argv.slice(1);
    const outcomes = {};
    const count = (key) => (outcomes[key] = (outcomes[key] ?? 0) + 1);
    const started = performance.now();
    if (mode === 'http') {
      await Promise.all(Array.from({ length: Number(calls) }, () =>
        fetch(base + path, { headers: { Authorization: 'Bearer ' + token } })
          .then(async (res) => { await res.arrayBuffer(); count(String(res.status)); })
          .catch((e) => count('error ' + (e.cause?.code ?? e.message)))));
    } else {
      const [sessionId, , taskId] = path.split('/').filter(Boolean).slice(1);
      const { default: WebSocket } = await import('ws');
      const ws = new WebSocket(base.replace('http', 'ws').replace(/\\/api$/, '/ws') + '?token=' + token);
      await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
      let left = Number(calls);
      const done = new Promise((resolve) => {
        ws.onmessage = (m) => { const f = JSON.parse(m.data); if (f.t !== 'result') return; count(f.ok ? 'ok' : f.error.code); if (--left === 0) resolve(); };
        // The host cuts off a client that falls too far behind (WS_MAX_BUFFERED_BYTES): say so, never wait forever.
        ws.onclose = (event) => { if (left > 0) { outcomes['unanswered, socket closed ' + event.code] = left; resolve(); } };
      });
      for (let id = 1; id <= Number(calls); id++) ws.send(JSON.stringify({ t: 'call', id, name: 'getTask', input: { sessionId, taskId } }));
      await done;
      ws.close();
    }
    console.log(JSON.stringify({ ms: performance.now() - started, outcomes }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, base, path, mode, String(FLOOD_CALLS), TEST_TOKEN],
      { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`flood exited with ${code}`)),
    );
  });
}

async function scenario(
  host: SpawnedHost,
  path: string,
  mode: 'http' | 'ws',
  baselineRss: number,
  baselineP99: number,
): Promise<void> {
  const pid = host.child.pid!;
  let peak = rssMb(pid);
  const probes: number[] = [];
  let probeFailures = 0;
  let flooding = true;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const prober = (async () => {
    while (flooding) {
      // A refused connection (the listen backlog overflowing) counts against the host, not as a pause.
      await probeInfo(host.base).then(
        (ms) => probes.push(ms),
        () => probeFailures++,
      );
    }
  })();
  let result: Awaited<ReturnType<typeof flood>>;
  try {
    result = await flood(host.base, path, mode);
  } finally {
    // Also when the flood failed: a sampler left running would read a stopped host and hide why.
    flooding = false;
    await prober;
    clearInterval(sampler);
  }
  // Memory is given back lazily (V8 shrinks its heap over a few idle GCs): wait up to 15 s for it.
  let after = rssMb(pid);
  for (let i = 0; i < 30 && after > baselineRss * 1.2; i++) {
    await sleep(500);
    after = rssMb(pid);
  }
  const p50 = quantile(probes, 0.5);
  const p99 = quantile(probes, 0.99);
  const label = mode === 'http' ? 'a connection each' : 'one WebSocket';
  recordFigure({
    name: `/api/info p99 under a getTask flood (${label})`,
    value: p99,
    unit: 'ms',
    baseline: baselineP99,
    ratio: p99 / baselineP99,
    target: 'p99 <= 50 ms',
    met: p99 <= 50,
  });
  recordFigure(
    ratioFigure(
      `host memory after a getTask flood (${label})`,
      after,
      'MB',
      baselineRss,
      'ratio <= 1.2',
      (r) => r <= 1.2,
    ),
  );
  console.log(
    `${mode === 'http' ? `${FLOOD_CALLS} concurrent getTask, a connection each` : `${FLOOD_CALLS} getTask frames on one WebSocket`}: ` +
      `${fmt(result.ms)} ms, outcomes ${JSON.stringify(result.outcomes)}; meanwhile /api/info (${probes.length} answered, ${probeFailures} failed) ` +
      `p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms, ratio to the idle p99 ${fmt(p99 / baselineP99, 2)} (target p99 <= 50 ms); ` +
      `host RSS ${fmt(baselineRss)} -> peak ${fmt(peak)} -> after ${fmt(after)} MB, ratio after/before ${fmt(after / baselineRss, 2)} (target <= 1.2)`,
  );
}

async function main(): Promise<void> {
  const host = await spawnHost(join(dir, 'data'));
  try {
    const session = await host.call('POST', '/sessions', { title: 'bench' });
    const task = await host.call('POST', `/sessions/${session.id}/background-tasks`, { command: LOG_COMMAND });
    const path = `/sessions/${session.id}/background-tasks/${task.id}`;
    for (let i = 0; i < 600; i++) {
      const { task: row } = await host.call('GET', path);
      if (!row.running && row.status !== 'queued') break;
      await sleep(100);
    }
    // The first read renders the log; the flood measures what every later read costs.
    const first = await host.call('GET', path);
    const idle: number[] = [];
    for (let i = 0; i < BASELINE_PROBES; i++) idle.push(await probeInfo(host.base));
    const baselineP99 = quantile(idle, 0.99);
    const baselineRss = rssMb(host.child.pid!);
    console.log(
      `log of ${first.output.total_bytes} bytes; idle /api/info p50 ${fmt(quantile(idle, 0.5))} ms, p99 ${fmt(baselineP99)} ms; host RSS ${fmt(baselineRss)} MB`,
    );
    await scenario(host, path, 'http', baselineRss, baselineP99);
    await scenario(host, path, 'ws', baselineRss, baselineP99);
  } finally {
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
