import type { Stats } from 'node:fs';
import { parseArgs } from 'node:util';

export interface HostArgs {
  /** Absent: the port of the last start when it is free, else any free port (see last-port.ts). */
  port: number | undefined;
  dataDir: string | undefined;
  token: string | undefined;
  cwd: string | undefined;
  /** Stop (as on SIGTERM) when standard input ends: a host started by a script stops with it. */
  exitWithStdin: boolean;
  help: boolean;
}

export const HOST_USAGE = `Usage: npm run serve -- [--port N] [--data-dir DIR] [--token TOKEN] [--cwd DIR] [--exit-with-stdin]

  --port N         port on 127.0.0.1 (default: the last start's port when it is free, else any free one; 0: any)
  --data-dir DIR   where sessions and task logs live (default: $XDG_DATA_HOME/drover or the platform's equivalent)
  --token TOKEN    the access token (default: a fresh random one each start; also DROVER_TOKEN)
  --cwd DIR        where shell commands run (default: the folder the host was started in)
  --exit-with-stdin
                   stop, as on SIGTERM, when standard input ends: a script that starts the host with
                   a pipe as its input takes the host and its tasks with it when it ends or dies`;

/** Reads the host's flags; a bad flag is an error naming it, never a silent default. */
export function parseHostArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): HostArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      token: { type: 'string' },
      cwd: { type: 'string' },
      'exit-with-stdin': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
      throw new Error(`--port must be a whole number from 0 to 65535, not "${values.port}"`);
    }
    port = Number(values.port);
  }
  const token = values.token ?? env.DROVER_TOKEN;
  if (token !== undefined && !/^[A-Za-z0-9._~-]{16,256}$/.test(token)) {
    throw new Error('--token must be 16 to 256 characters of letters, digits and . _ ~ -');
  }
  return {
    port,
    dataDir: values['data-dir'],
    token,
    cwd: values.cwd,
    exitWithStdin: values['exit-with-stdin'] ?? false,
    help: values.help ?? false,
  };
}

/**
 * Why standard input, as `fstat` shows it, cannot carry --exit-with-stdin; null when it can (a
 * pipe or a socket, whose end says that whoever holds the other end closed it or died). From a
 * terminal the host would take the person's typing and stop at Ctrl+D (or be stopped outright,
 * run with `&`), and /dev/null, which a script's `command &` gets, ends at once.
 */
export function stdinUnfitForExit(
  stdin: Pick<Stats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isFile'> | null,
): string | null {
  if (!stdin) return 'it is closed';
  if (stdin.isFIFO() || stdin.isSocket()) return null;
  if (stdin.isCharacterDevice())
    return 'it is a terminal or a device such as /dev/null (which a script gives to `command &`)';
  if (stdin.isFile()) return 'it is a file';
  return 'it is neither a pipe nor a socket';
}
