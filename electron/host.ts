/**
 * Composition root of the headless host: the app's services on plain Node, served to a
 * browser (and scripts) on 127.0.0.1 behind a per-start token.
 */
import { fstatSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { createServices } from './core/services.js';
import { defaultDataDir, findAppRoot, readAppVersion } from './core/paths.js';
import { StoreOpenError } from './store/database.js';
import { DataFolderBusyError } from './store/data-lock.js';
import { noRoomAtStart } from './store/no-room.js';
import { HOST_USAGE, parseHostArgs, stdinUnfitForExit } from './host/cli.js';
import { newToken } from './host/auth.js';
import { startHostServer } from './host/server.js';
import { portUnavailable, readLastPort, saveLastPort } from './host/last-port.js';
import { warmNewestSession } from './host/warm-up.js';
import { dropUnwritableOutput, STOP_SIGNALS } from './core/stopping.js';

async function main(): Promise<void> {
  let args;
  try {
    args = parseHostArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`drover: ${(error as Error).message}\n\n${HOST_USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    console.log(HOST_USAGE);
    return;
  }
  if (args.exitWithStdin) {
    const unfit = stdinUnfitForExit(statOrNull(0));
    if (unfit) {
      console.error(`drover: --exit-with-stdin needs a pipe as standard input, and ${unfit}\n\n${HOST_USAGE}`);
      process.exit(2);
    }
  }
  // The command line is readable by every process of the machine: once read, the token is wiped from it.
  process.title = 'drover-host';
  const appRoot = findAppRoot(import.meta.dirname);
  const dataDir = resolve(args.dataDir ?? defaultDataDir());
  let services;
  try {
    services = createServices({
      dataDir,
      version: readAppVersion(appRoot),
      host: 'headless',
      checkOutputs: false,
      workingDir: resolve(args.cwd ?? process.cwd()),
    });
  } catch (error) {
    if (error instanceof StoreOpenError) {
      console.error(`drover: ${error.message}`);
      process.exit(3);
    }
    if (error instanceof DataFolderBusyError) {
      console.error(`drover: ${error.message}`);
      process.exit(4);
    }
    const noRoom = noRoomAtStart(error, dataDir);
    if (noRoom) {
      console.error(`drover: ${noRoom}`);
      process.exit(5);
    }
    throw error;
  }
  const token = args.token ?? newToken();
  const listen = (port: number) =>
    startHostServer({
      endpoint: services,
      token,
      port,
      staticDir: join(appRoot, 'out', 'renderer'),
      // Each connection's fair share of the host (settings.json "host"; 16 when unset).
      ...(services.settings.current.host?.maxInFlightPerConnection
        ? { maxInFlightPerConnection: services.settings.current.host.maxInFlightPerConnection }
        : {}),
      // How long a WebSocket client may read nothing before it is cut off (60 s when unset).
      ...(services.settings.current.host?.stalledClientSeconds
        ? { wsStallMs: services.settings.current.host.stalledClientSeconds * 1000 }
        : {}),
    });
  const lastPort = args.port === undefined ? readLastPort(dataDir) : undefined;
  const server = await listen(args.port ?? lastPort ?? 0).catch((error: unknown) => {
    // The last start's port cannot be had now (another program holds it, the system reserved it): any free one will do.
    if (lastPort !== undefined && portUnavailable(error)) return listen(0);
    throw error;
  });
  saveLastPort(dataDir, server.port);
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`drover: ${why}, stopping`);
    // Every task is stopped as a group and its log flushed before the process ends.
    await Promise.all([server.close(), services.shutdown()]);
    process.exit(0);
  };
  // SIGHUP: the terminal the host runs in was closed. Left to Node's default, the host would end on
  // the spot, and the tasks that outlive a hangup (nohup, servers) would run on unsupervised.
  for (const signal of STOP_SIGNALS) process.on(signal, () => void stop(`${signal} received`));
  dropUnwritableOutput();
  if (args.exitWithStdin) {
    // What comes in is read and dropped; only its end matters (the writer closed it, or died).
    process.stdin.on('end', () => void stop('standard input closed'));
    process.stdin.on('error', () => void stop('standard input failed'));
    process.stdin.resume();
  }
  // Said only once a stop would be handled: whoever reads this line may signal at once.
  services.announce(server.url.replace(/\?.*$/, ''));
  console.log(`Drover listening on ${server.url}`);
  // After the line is out: whoever waits for it is not kept waiting by this.
  setImmediate(() => warmNewestSession(services));
}

function statOrNull(fd: number): Stats | null {
  try {
    return fstatSync(fd);
  } catch {
    return null;
  }
}

main().catch((error: unknown) => {
  console.error('drover: the host failed to start:', error);
  process.exit(1);
});
