import { createRequire } from 'node:module';

/** Linux's O_CLOEXEC: the pipe's ends are never inherited by anything Drover starts later. */
const O_CLOEXEC = 0o2000000;
const F_SETFD = 2;
const FD_CLOEXEC = 1;
/** fcntl command (Linux): set a pipe's capacity. */
const F_SETPIPE_SZ = 1031;
/** ioctl request: bytes waiting to be read (Linux's FIONREAD; macOS's differs). */
const FIONREAD = process.platform === 'darwin' ? 0x4004667f : 0x541b;

type Pipe2 = (fds: Int32Array, flags: number) => number;
type Pipe = (fds: Int32Array) => number;
type Fcntl = (fd: number, command: number, ...rest: unknown[]) => number;
type Ioctl = (fd: number, request: number, ...rest: unknown[]) => number;
type TermiosCall = (fd: number, ...rest: unknown[]) => number;
type Mkfifo = (path: string, mode: number) => number;

let bound: {
  pipe2: Pipe2 | null;
  pipe: Pipe;
  fcntl: Fcntl;
  ioctl: Ioctl;
  tcgetattr: TermiosCall;
  tcsetattr: TermiosCall;
  mkfifo: Mkfifo;
} | null = null;
let unavailable: string | null = null;

/** libc's descriptor calls through koffi, bound on first use (Linux and macOS). */
function bind(): typeof bound {
  if (bound || unavailable) return bound;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const lib = koffi.load(process.platform === 'darwin' ? 'libSystem.B.dylib' : 'libc.so.6');
    bound = {
      // macOS has no pipe2: there the flag is set right after, before anything is spawned.
      pipe2: process.platform === 'darwin' ? null : (lib.func('int pipe2(_Out_ int *fds, int flags)') as Pipe2),
      pipe: lib.func('int pipe(_Out_ int *fds)') as Pipe,
      fcntl: lib.func('int fcntl(int fd, int cmd, ...)') as Fcntl,
      ioctl: lib.func('int ioctl(int fd, unsigned long request, ...)') as Ioctl,
      tcgetattr: lib.func('int tcgetattr(int fd, _Inout_ uint8_t *termios)') as TermiosCall,
      tcsetattr: lib.func('int tcsetattr(int fd, int when, uint8_t *termios)') as TermiosCall,
      mkfifo: lib.func('int mkfifo(const char *path, unsigned int mode)') as Mkfifo,
    };
  } catch (error) {
    unavailable = `the descriptor calls could not be loaded: ${(error as Error).message}`;
  }
  return bound;
}

/**
 * A real pipe (not the socket pair Node makes for a child's 'pipe' stdio), both ends
 * close-on-exec. A task whose output is a socket cannot open /dev/stdout or /dev/stderr (ENXIO),
 * which scripts do; on a pipe they work as they do in a shell. Throws with the reason when the
 * OS would not make one.
 */
export function osPipe(): { read: number; write: number } {
  const calls = bind();
  if (!calls) throw new Error(unavailable ?? 'pipes are not available');
  const fds = new Int32Array(2);
  if (calls.pipe2) {
    if (calls.pipe2(fds, O_CLOEXEC) !== 0) throw new Error('pipe2 failed (too many open files?)');
  } else {
    if (calls.pipe(fds) !== 0) throw new Error('pipe failed (too many open files?)');
    for (const fd of fds) calls.fcntl(fd, F_SETFD, 'int', FD_CLOEXEC);
  }
  return { read: fds[0]!, write: fds[1]! };
}

/** How many bytes wait to be read on a descriptor (a terminal's master, say); null when it cannot be told. */
export function bytesWaiting(fd: number): number | null {
  if (process.platform === 'win32') return null;
  const calls = bind();
  if (!calls) return null;
  const count = new Int32Array(1);
  return calls.ioctl(fd, FIONREAD, 'int *', count) === 0 ? count[0]! : null;
}

/**
 * Asks Linux for a bigger pipe (64 KiB by default): a task that prints fast then runs ahead of
 * Drover's reads instead of stopping at every 64 KiB, and each wake-up reads several chunks.
 * Best effort: a limit (fs.pipe-max-size) or another OS leaves the pipe as it is.
 */
export function widenPipe(fd: number, bytes: number): void {
  if (process.platform !== 'linux') return;
  bind()?.fcntl(fd, F_SETPIPE_SZ, 'int', bytes);
}

/**
 * Where a terminal's output flags are in libc's `struct termios`, and the LF → CR LF bit there
 * (ONLCR) with the bit that turns output processing on at all (OPOST): Linux's flags are 32-bit,
 * macOS's are `unsigned long` (64-bit). Elsewhere none is known.
 */
const TERMIOS =
  process.platform === 'linux'
    ? { size: 64, oflagOffset: 4, oflagBytes: 4, onlcr: 0o4, opost: 0o1 }
    : process.platform === 'darwin'
      ? { size: 80, oflagOffset: 8, oflagBytes: 8, onlcr: 0x2, opost: 0x1 }
      : null;
/** tcsetattr: apply now. */
const TCSANOW = 0;

/**
 * Turns off a terminal's LF → CR LF output translation (what `stty -onlcr` does), on either end
 * of a pseudo-terminal, without starting a program. Read back after: a layout that does not
 * match this libc's is caught, never half-applied. Null when done, else why not.
 */
export function rawOutputNewlines(fd: number): string | null {
  const problem = terminalCallsProblem();
  const calls = bind();
  if (problem || !TERMIOS || !calls) return problem ?? 'the terminal calls are not available';
  const termios = Buffer.alloc(TERMIOS.size + 64);
  const oflag = (): number =>
    TERMIOS.oflagBytes === 4
      ? termios.readUInt32LE(TERMIOS.oflagOffset)
      : Number(termios.readBigUInt64LE(TERMIOS.oflagOffset) & 0xffffffffn);
  if (calls.tcgetattr(fd, termios) !== 0) return 'tcgetattr failed';
  const before = oflag();
  // Without output processing there is no translation to turn off.
  if ((before & TERMIOS.opost) === 0) return null;
  const after = before & ~TERMIOS.onlcr;
  if (TERMIOS.oflagBytes === 4) termios.writeUInt32LE(after >>> 0, TERMIOS.oflagOffset);
  else termios.writeBigUInt64LE(BigInt(after >>> 0), TERMIOS.oflagOffset);
  if (calls.tcsetattr(fd, TCSANOW, termios) !== 0) return 'tcsetattr failed';
  termios.fill(0);
  if (calls.tcgetattr(fd, termios) !== 0 || oflag() !== after) return 'the terminal did not take the change';
  return null;
}

/** Why a terminal's modes cannot be changed here (no known layout, no libc calls), or null when they can. */
export function terminalCallsProblem(): string | null {
  if (!TERMIOS) return 'no known terminal layout here';
  return bind() ? null : (unavailable ?? 'the terminal calls are not available');
}

/** Makes a named pipe (FIFO) at `path`, readable and writable by this user alone; null when made, else why not. */
export function makeFifo(path: string): string | null {
  if (process.platform === 'win32') return 'no named pipes here';
  const calls = bind();
  if (!calls) return unavailable ?? 'the descriptor calls are not available';
  return calls.mkfifo(path, 0o600) === 0 ? null : `mkfifo failed for ${path}`;
}
