import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { SettingsUpdate } from '../../shared/schemas/settings.js';
import { tempDir } from '../helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export interface SandboxWorld {
  services: Services;
  sessionId: string;
  /** The session's working folder (writable from the sandbox). */
  work: string;
  /** A home folder of the test's own, with a planted ~/.ssh/id_rsa. */
  home: string;
  dataDir: string;
  /** A folder outside every writable place (not under the temp folder). */
  outside: string;
  /** Runs a command as the model's would run (sandboxed, on pipes) and answers its settled row and output. */
  run(command: string, options?: { sandboxed?: boolean }): Promise<{ row: TaskRow; output: string }>;
  start(command: string, options?: { sandboxed?: boolean }): Promise<TaskRow>;
  call<T>(name: string, input: unknown): Promise<T>;
}

export const SECRET = 'PLANTED-SECRET-KEY-0123456789';

/** The real services with the sandbox on (whatever DROVER_SANDBOX says), shut down after the test. */
export function sandboxServices(options: {
  dataDir: string;
  workingDir: string;
  env?: NodeJS.ProcessEnv;
  warn?: (message: string) => void;
}): Services {
  const services = createServices({
    dataDir: options.dataDir,
    version: '1',
    host: 'headless',
    workingDir: options.workingDir,
    sandbox: 'auto',
    env: { ...process.env, ...options.env },
    checkOutputs: true,
    warn: options.warn ?? (() => {}),
  });
  cleanups.push(() => services.shutdown());
  return services;
}

/** Real services with the sandbox on (bubblewrap here), a fake home with a planted key. */
export async function sandboxWorld(settings: SettingsUpdate['sandbox'] = {}): Promise<SandboxWorld> {
  const dataDir = tempDir('drover-sandbox-data-');
  const work = tempDir('drover-sandbox-work-');
  const home = tempDir('drover-sandbox-home-');
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_rsa'), SECRET);
  // Outside the temp folder, which sandboxed commands may write.
  mkdirSync('/var/tmp', { recursive: true });
  const outside = mkdtempSync('/var/tmp/drover-sandbox-outside-');
  cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
  // Tasks get Drover's own environment: the fake home is this process's for the test.
  const realHome = process.env.HOME;
  process.env.HOME = home;
  cleanups.push(() => {
    process.env.HOME = realHome;
  });
  const services = sandboxServices({ dataDir, workingDir: work });
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const result = await services.handle(name as never, input as never);
    if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
    return result.value as T;
  };
  if (Object.keys(settings).length > 0) await call('updateSettings', { sandbox: settings });
  const session = await call<{ id: string }>('createSession', { title: 'sandbox' });
  const start = async (command: string, options: { sandboxed?: boolean } = {}) => {
    const record = await services.pool.start({
      sessionId: session.id,
      command,
      cwd: work,
      tty: false,
      sandboxed: options.sandboxed ?? true,
    });
    return services.pool.row(session.id, record.id);
  };
  return {
    services,
    sessionId: session.id,
    work,
    home,
    dataDir,
    outside,
    call,
    start,
    async run(command, options) {
      const started = await start(command, options);
      await services.pool.waitFor(started.id, 30_000);
      const row = services.pool.row(session.id, started.id);
      const output = await services.pool.output(session.id, started.id);
      return { row, output: output.text };
    },
  };
}

/** A TCP server on 127.0.0.1 that greets each connection; closed after the test. */
export async function greeter(): Promise<{ port: number; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.end('HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nHELLO\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        // The proxy may keep its side open: the test's end closes it.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as { port: number }).port, server };
}
