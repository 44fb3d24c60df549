/**
 * The lag bench's host: the built host (`out/main/host.js`) as a real process, with the lag probe
 * loaded into it, and what the bench reads from outside (RSS, the probe's reports, log sizes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..');
export const BENCH_TOKEN = 'lag-bench-token-0123456789';
const START_TIMEOUT_MS = 30_000;
const REPORT_TIMEOUT_MS = 10_000;

/** What the probe inside the host measured between two marks, in ms of lag past its timer's period. */
export interface LagReport {
  seq: number;
  resolutionMs: number;
  samples: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
  memory: NodeJS.MemoryUsage;
}

export interface LagHost {
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** The page's address, token included. */
  url: string;
  /** A REST call with the token; the answer's shape is the caller's to name. */
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Ends the probe's current period and returns what it measured; the next period starts now. */
  markLag(): Promise<LagReport>;
  rssMb(): number;
  /** CPU time the host has used, user and system, in seconds. */
  cpuSeconds(): number;
  /** Bytes every task's log holds on disk (the raw output, as the tasks printed it). */
  logBytes(): number;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export const BUILT_HOST = join(root, 'out', 'main', 'host.js');

/**
 * Starts the built host on `dataDir`. `nodeArgs` go to its Node (`--cpu-prof`, `--trace-gc`);
 * `hostJs` may name another build of it, to compare a change in the same harness.
 */
export async function startLagHost(
  dataDir: string,
  options: { nodeArgs?: string[]; hostJs?: string } = {},
): Promise<LagHost> {
  const hostJs = options.hostJs ?? BUILT_HOST;
  for (const built of [hostJs, join(root, 'out', 'renderer', 'index.html')]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
  }
  const lagFile = join(dataDir, 'lag-report.json');
  const nodeArgs = [
    '--import',
    join(root, 'bench', 'lag-probe.mjs'),
    ...(options.nodeArgs ?? []),
    hostJs,
    ...['--data-dir', dataDir, '--cwd', dataDir, '--token', BENCH_TOKEN],
  ];
  const child = spawn(process.execPath, nodeArgs, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DROVER_REPORT_LAG: lagFile },
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error('the host did not start in time')), START_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`the host exited early with ${code}`)));
    // Read to the end, so a host that keeps printing never blocks on a full pipe.
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^Drover listening on (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolveUrl(match[1]!);
    });
  });
  const origin = new URL(url).origin;
  const pid = child.pid!;
  let lastSeq = 0;
  return {
    child,
    pid,
    origin,
    url,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await fetch(`${origin}/api${path}`, {
        method,
        headers: { Authorization: `Bearer ${BENCH_TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json as T;
    },
    async markLag() {
      process.kill(pid, 'SIGUSR2');
      const deadline = Date.now() + REPORT_TIMEOUT_MS;
      while (Date.now() < deadline) {
        const report = readReport(lagFile);
        if (report && report.seq > lastSeq) {
          lastSeq = report.seq;
          return report;
        }
        await sleep(20);
      }
      throw new Error('the lag probe in the host did not report (was bench/lag-probe.mjs loaded?)');
    },
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024,
    cpuSeconds: () => cpuSecondsOf(pid),
    logBytes: () => sumTaskLogs(dataDir),
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** Linux counts process CPU time in clock ticks of 1/100 s (USER_HZ, the same on every architecture Drover runs on). */
const TICKS_PER_SECOND = 100;

function cpuSecondsOf(pid: number): number {
  // Fields after the command's closing parenthesis (the command may hold spaces): utime is the 12th, stime the 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function readReport(file: string): LagReport | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LagReport;
  } catch {
    return null;
  }
}

/** Each task's log is `sessions/<id>/background/<taskId>/output.log` under the data folder. */
function sumTaskLogs(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += sumTaskLogs(path);
    else if (entry.name === 'output.log') total += statSync(path).size;
  }
  return total;
}
