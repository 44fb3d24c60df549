import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..');

export interface RunningHost {
  url: string;
  origin: string;
  token: string;
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the built headless host (`out/main/host.js`) as a real process on a fresh data folder. */
export async function startHost(
  options: {
    dataDir?: string;
    port?: number;
    token?: string;
    /** Run the model's commands in the sandbox (bubblewrap here); off in every other spec, which test other things. */
    sandbox?: boolean;
    /** Where commands run (the session's working folder); the data folder unless given. */
    cwd?: string;
  } = {},
): Promise<RunningHost> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'drover-e2e-'));
  // Commands run in the data folder, never in the checkout.
  const args = [
    '--port',
    String(options.port ?? 0),
    '--data-dir',
    dataDir,
    '--cwd',
    options.cwd ?? dataDir,
    ...(options.token ? [`--token=${options.token}`] : []),
    // Its input is a pipe only this process writes to: if this process dies (a crashed spec, a
    // killed worker, a bench stopped with Ctrl+C), the host stops its tasks and exits with it.
    '--exit-with-stdin',
  ];
  const child = spawn(process.execPath, [join(root, 'out', 'main', 'host.js'), ...args], {
    cwd: root,
    env: { ...process.env, DROVER_SANDBOX: options.sandbox ? '' : 'off' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`host did not start in time:\n${log}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`host exited with ${code}:\n${log}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log += `${line}\n`;
      const match = /^Drover listening on (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]!);
      }
    });
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    dataDir,
    process: child,
    output: () => log,
    stop: () =>
      new Promise((resolveStop) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolveStop(child.exitCode);
        child.once('exit', (code) => resolveStop(code));
        child.kill('SIGTERM');
      }),
  };
}

/** Starts a background task in `sessionId` through the host's REST API, as a script would. */
export async function startBackgroundTask(host: RunningHost, sessionId: string, command: string): Promise<void> {
  const response = await fetch(`${host.origin}/api/sessions/${sessionId}/background-tasks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${host.token}` },
    body: JSON.stringify({ command }),
  });
  if (response.status !== 201) throw new Error(`could not start a task: ${await response.text()}`);
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
