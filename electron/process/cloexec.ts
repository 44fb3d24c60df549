import { createRequire } from 'node:module';

const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

type Fcntl = (fd: number, command: number, ...rest: unknown[]) => number;

let fcntl: Fcntl | null = null;
let unavailable: string | null = null;

/** libc's fcntl through koffi, bound on first use (Linux and macOS). */
function bind(): Fcntl | null {
  if (fcntl || unavailable) return fcntl;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const names = process.platform === 'darwin' ? ['libSystem.B.dylib'] : ['libc.so.6', 'libc.so'];
    let lastError: unknown = null;
    for (const name of names) {
      try {
        fcntl = koffi.load(name).func('int fcntl(int fd, int cmd, ...)') as Fcntl;
        return fcntl;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  } catch (error) {
    unavailable = `fcntl could not be loaded: ${(error as Error).message}`;
    return null;
  }
}

/**
 * Marks a descriptor close-on-exec. node-pty hands back its terminal master without the flag, so
 * without this every task started later would hold every earlier task's terminal: able to type
 * into its prompts, read its output first, and keep it from hanging up when Drover dies.
 * Returns null when the flag is set, else why not.
 */
export function setCloseOnExec(fd: number): string | null {
  if (process.platform === 'win32') return null;
  const call = bind();
  if (!call) return unavailable;
  const flags = call(fd, F_GETFD);
  if (flags < 0) return `fcntl(F_GETFD) failed on descriptor ${fd}`;
  if (flags & FD_CLOEXEC) return null;
  return call(fd, F_SETFD, 'int', flags | FD_CLOEXEC) < 0 ? `fcntl(F_SETFD) failed on descriptor ${fd}` : null;
}
