import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const TEST_TOKEN = 'test-token-0123456789abcdef';
const root = resolve(import.meta.dirname, '../..');

export interface SpawnedHost {
  child: ChildProcess;
  base: string;
  call(method: string, path: string, body?: unknown): Promise<any>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Node's arguments that run the host from source on `dataDir`; with `exitWithStdin` (the default)
 * it stops when its standard input, a pipe of this process's, ends: a test run that dies takes
 * its hosts with it.
 */
export const hostArgs = (dataDir: string, { exitWithStdin = true } = {}) => [
  '--import',
  'tsx',
  join(root, 'electron/host.ts'),
  '--data-dir',
  dataDir,
  '--token',
  TEST_TOKEN,
  '--cwd',
  dataDir,
  ...(exitWithStdin ? ['--exit-with-stdin'] : []),
];

/** The host's API address (`http://127.0.0.1:PORT/api`), from the line it prints once it listens; null for any other text. */
export function listeningBase(text: string): string | null {
  const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
  return match ? `${match[1]}/api` : null;
}

/** A REST call to the host at `base` with the test token; the answer's JSON body. */
export async function callHost(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${TEST_TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.json();
}

/** The headless host from source, as a real separate process (so it can be killed like a crash). */
export function spawnHost(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { exitWithStdin?: boolean } = {},
): Promise<SpawnedHost> {
  const child = spawn(process.execPath, hostArgs(dataDir, options), {
    cwd: root,
    stdio: [options.exitWithStdin === false ? 'ignore' : 'pipe', 'pipe', 'inherit'],
    env,
  });
  return new Promise((resolvePromise, reject) => {
    child.once('exit', (code) => reject(new Error(`host exited early with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const base = listeningBase(line);
      if (!base) return;
      resolvePromise({
        child,
        base,
        call: (method, path, body) => callHost(base, method, path, body),
        stop(signal = 'SIGTERM') {
          return new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode);
            child.once('exit', (code) => done(code));
            child.kill(signal);
          });
        },
      });
    });
  });
}

/** Runs the host on a folder and waits for it to exit (a start that must be refused). */
export function runHostToExit(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, hostArgs(dataDir), { cwd: root, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise) => child.once('exit', (code) => resolvePromise({ code, stderr })));
}
