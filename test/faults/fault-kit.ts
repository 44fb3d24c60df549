/**
 * Shared pieces of the fault-injection suite: the real host as a separate process (bundled once,
 * so a start costs a Node start rather than a TypeScript compile), the database read behind its
 * back, and a census of every process a test started, found by a mark in its environment.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { MARK_PREFIX } from '../../electron/process/identity.js';

export const FAULT_TOKEN = 'fault-token-0123456789abcdef';
const root = resolve(import.meta.dirname, '../..');
/** Inside the repository, so the bundled host finds package.json (its app root) and node_modules above it. */
const bundleDir = join(root, 'node_modules', '.cache', 'drover-faults');
/** Every process a fault test starts inherits this variable (a DROVER_ name would be kept from tasks); its value is unique to the test. */
export const RUN_MARK_VARIABLE = 'FAULT_RUN_MARK';

let bundled: string | null = null;

/** electron/host.ts bundled with esbuild (packages stay external), once per test process. */
export function hostBundle(): string {
  if (bundled) return bundled;
  mkdirSync(bundleDir, { recursive: true });
  const out = join(bundleDir, `host-${process.pid}.mjs`);
  execFileSync(
    join(root, 'node_modules', '.bin', 'esbuild'),
    [
      join(root, 'electron/host.ts'),
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--packages=external',
      `--outfile=${out}`,
      '--log-level=warning',
    ],
    { cwd: root },
  );
  process.once('exit', () => rmSync(out, { force: true }));
  bundled = out;
  return out;
}

export interface Answer {
  status: number;
  body: any;
}

export interface FaultHost {
  child: ChildProcess;
  pid: number;
  base: string;
  /** Resolves when the process has ended, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  call(method: string, path: string, body?: unknown): Promise<Answer>;
  alive(): boolean;
  stderr(): string;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function newRunMark(): string {
  return `fault-${randomBytes(8).toString('hex')}`;
}

/** Starts the bundled host on a data folder; every process it starts carries `runMark`. */
export function startHost(dataDir: string, runMark: string): Promise<FaultHost> {
  const child = spawn(
    process.execPath,
    // --exit-with-stdin, stdin a pipe of this process's: a test run that dies takes its hosts with it.
    [hostBundle(), '--data-dir', dataDir, '--token', FAULT_TOKEN, '--cwd', dataDir, '--exit-with-stdin'],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, [RUN_MARK_VARIABLE]: runMark },
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return new Promise((resolvePromise, reject) => {
    void exited.then(({ code, signal }) =>
      reject(new Error(`host exited before listening (${code ?? signal}): ${stderr}`)),
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(line);
      if (!match) return;
      const base = `${match[1]}/api`;
      resolvePromise({
        child,
        pid: child.pid!,
        base,
        exited,
        alive: () => child.exitCode === null && child.signalCode === null,
        stderr: () => stderr,
        async call(method, path, body) {
          const res = await fetch(`${base}${path}`, {
            method,
            headers: { Authorization: `Bearer ${FAULT_TOKEN}`, 'Content-Type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            signal: AbortSignal.timeout(60_000),
          });
          const text = await res.text();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* kept as text: a non-JSON answer is itself a finding */
          }
          return { status: res.status, body: parsed };
        },
        stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
  });
}

/** Pids of live processes whose environment holds `needle` (a run mark or an instance's task mark). */
export function processesMarked(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (environ.includes(needle) && !isZombie(Number(entry))) found.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/** Whether a process runs: it exists and is not a zombie waiting for its parent. */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\)/, ''));
  } catch {
    return true;
  }
}

/**
 * Waits (generously) for every process carrying the test's mark, or the instance's task mark, to
 * end, then kills and returns any still running: a test that finds strays fails, and leaves none
 * behind either way.
 */
export async function strays(runMark: string, instanceId: string | null, limitMs = 30_000): Promise<number[]> {
  const needles = [`${RUN_MARK_VARIABLE}=${runMark}`, ...(instanceId ? [`${MARK_PREFIX}${instanceId}=`] : [])];
  const census = () => [...new Set(needles.flatMap((needle) => processesMarked(needle)))];
  const deadline = Date.now() + limitMs;
  let left = census();
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = census();
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* ended meanwhile */
    }
  }
  return left;
}

export interface Stored {
  integrity: string;
  sessions: Map<string, string>;
  /** Task ids by session. */
  tasks: Set<string>;
  instanceId: string | null;
}

/** Reads the database read-only, as it lies on disk now (the host may be dead or alive). */
export function readStore(dataDir: string): Stored {
  const path = join(dataDir, 'drover.sqlite');
  if (!existsSync(path)) return { integrity: 'missing', sessions: new Map(), tasks: new Set(), instanceId: null };
  const db = new BetterSqlite3(path, { readonly: true, timeout: 10_000 });
  try {
    const integrity = (db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[])
      .map((row) => row.integrity_check)
      .join('; ');
    const sessions = new Map(
      (db.prepare('SELECT id, title FROM sessions').all() as { id: string; title: string }[]).map((row) => [
        row.id,
        row.title,
      ]),
    );
    const tasks = new Set(
      (db.prepare('SELECT session_id, id FROM tasks').all() as { session_id: string; id: string }[]).map(
        (row) => `${row.session_id}/${row.id}`,
      ),
    );
    const instance = db.prepare("SELECT value FROM meta WHERE name = 'instance_id'").get() as
      { value: string } | undefined;
    return { integrity, sessions, tasks, instanceId: instance?.value ?? null };
  } finally {
    db.close();
  }
}

/** Waits for a condition, never for a fixed time; the limit is generous because the machine is shared. */
export async function eventually<T>(
  check: () => Promise<T | false | null | undefined> | T | false | null | undefined,
  what: string,
  limitMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A small seeded generator (mulberry32), so a failing loop can be replayed from its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * One fault test's host and bookkeeping: what the host acknowledged, and the closing checks every
 * fault test makes (clean stop, every acknowledged row on disk, integrity ok, nothing running).
 */
export class HostCase {
  readonly runMark = newRunMark();
  readonly sessions = new Set<string>();
  readonly tasks = new Set<string>();
  host!: FaultHost;

  constructor(public dataDir: string) {}

  async start(): Promise<FaultHost> {
    this.host = await startHost(this.dataDir, this.runMark);
    return this.host;
  }

  /** A call that must be acknowledged; what it creates is remembered for the closing check. */
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await this.host.call(method, path, body);
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    if (method === 'POST' && path === '/sessions') this.sessions.add(answer.body.id);
    if (method === 'POST' && /^\/sessions\/[^/]+\/(background-tasks|shell)$/.test(path))
      this.tasks.add(`${path.split('/')[2]}/${answer.body.id}`);
    return answer.body;
  }

  async task(session: string, id: string): Promise<any> {
    return (await this.ok('GET', `/sessions/${session}/background-tasks/${id}`)).task;
  }

  /** Stops the host (SIGCONT first, in case a test left it stopped) and reports what the closing checks found. */
  async close(options: { forgotten?: Set<string> } = {}): Promise<{
    exit: { code: number | null; signal: NodeJS.Signals | null };
    integrity: string;
    lost: string[];
    strays: number[];
  }> {
    if (this.host?.alive()) this.host.child.kill('SIGCONT');
    const exit = this.host ? await this.host.stop('SIGTERM') : { code: null, signal: null };
    const stored = readStore(this.dataDir);
    const lost = [
      ...[...this.sessions]
        .filter((id) => !options.forgotten?.has(id) && !stored.sessions.has(id))
        .map((id) => `session ${id}`),
      ...[...this.tasks]
        .filter((key) => !options.forgotten?.has(key.split('/')[0]!) && !stored.tasks.has(key))
        .map((key) => `task ${key}`),
    ];
    return { exit, integrity: stored.integrity, lost, strays: await strays(this.runMark, stored.instanceId) };
  }
}
