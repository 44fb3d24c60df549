import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import type { ShellLauncher } from './command-runner.js';
import { osPipe, widenPipe } from './os-fds.js';
import type { LeaderIo } from './process-handle.js';
import type { RunnerExit, RunnerHandle, RunnerListener, Spec } from './runner.js';

/**
 * A task without a terminal: nothing will render colours or redraw a progress bar, and whoever
 * reads its output (the model, mostly) pays for every escape byte. `TERM=dumb` tells programs
 * there is no cursor to move; NO_COLOR (no-color.org) asks for plain text even from programs that
 * colour without looking at the terminal. A FORCE_COLOR the person set stays: that is their choice.
 */
export const PIPE_ENV: Readonly<Record<string, string>> = {
  TERM: 'dumb',
  NO_COLOR: '1',
};

/** Says the terminal shows 24-bit colour: untrue without one. */
const TERMINAL_ONLY_VARIABLES = ['COLORTERM'] as const;

/**
 * After a task's last process has ended, how long its output pipe may stay silent before the
 * wait for its end stops: only a process that left the task's container (and its mark) can
 * still hold the pipe open, and the task must not wait on that forever.
 */
export const PIPE_DRAIN_QUIET_MS = 2_000;

/** Output is read into buffers of this size (see ChunkReader). */
const READ_BUFFER_BYTES = 1024 * 1024;

/** The output pipe's capacity: Linux's default limit for an unprivileged process (fs.pipe-max-size). */
export const OUTPUT_PIPE_BYTES = 1024 * 1024;

/** What a person's keys mean to a task without a terminal: Ctrl-C interrupts it, Ctrl-D ends its input. */
const INTERRUPT = '\x03';
const END_OF_INPUT = '\x04';

/**
 * Runs a task's shell without a terminal. Its stdout and stderr are one pipe (the same open
 * file, as `2>&1` makes them), so what it prints reaches the log in the order it printed it;
 * its stdin is a pipe too, so typing into the task still reaches it. Real pipes, not the socket
 * pairs Node makes for 'pipe' stdio: a script may open /dev/stdout, which a socket refuses.
 */
export class PipeRunner {
  readonly #launcher: ShellLauncher;

  constructor(launcher: ShellLauncher) {
    this.#launcher = launcher;
  }

  start(spec: Spec, listener: RunnerListener): Promise<RunnerHandle> {
    return this.#launcher.start(spec, listener, {
      terminal: false,
      env: PIPE_ENV,
      drop: TERMINAL_ONLY_VARIABLES,
      spawn: (launch, env, cwd) =>
        process.platform === 'win32' ? spawnWindows(launch, env, cwd) : spawnUnix(launch, env, cwd),
    });
  }
}

function spawnUnix(launch: { file: string; args: string[] }, env: Record<string, string>, cwd: string): LeaderIo {
  const output = osPipe();
  let input: { read: number; write: number };
  try {
    input = osPipe();
  } catch (error) {
    closeSync(output.read);
    closeSync(output.write);
    throw error;
  }
  widenPipe(output.write, OUTPUT_PIPE_BYTES);
  let child: ChildProcess;
  try {
    // detached: the shell leads a new session and process group, as under a terminal.
    child = spawn(launch.file, launch.args, {
      cwd,
      env,
      stdio: [input.read, output.write, output.write],
      detached: true,
    });
  } catch (error) {
    for (const fd of [output.read, input.write]) closeSync(fd);
    throw error;
  } finally {
    // The child holds its ends now; ours would keep the output from ever ending.
    closeSync(input.read);
    closeSync(output.write);
  }
  const chunks = new ChunkReader();
  const reader = new Socket({
    fd: output.read,
    readable: true,
    writable: false,
    onread: { buffer: () => chunks.buffer, callback: (bytes: number) => chunks.take(bytes) },
  } as ConstructorParameters<typeof Socket>[0]);
  if (child.pid === undefined) {
    child.on('error', () => {});
    reader.destroy();
    closeSync(input.write);
    throw new Error('could not fork a new process');
  }
  // The input's socket is made when something is first typed: most tasks are never typed into.
  const writer = lazyWriter(() => new Socket({ fd: input.write, readable: false, writable: true }), input.write);
  return new PipeIo(child, child.pid, reader, writer, (deliver) => (chunks.deliver = deliver));
}

/** A task's input: what is typed goes to it until it is closed; `close` lets go of the descriptor. */
interface InputEnd {
  write(text: string): void;
  end(): void;
  close(): void;
}

/** Its socket is made on first use; once closed, nothing more is written. */
function lazyWriter(make: () => Socket, fd: number): InputEnd {
  let made: Socket | null = null;
  let closed = false;
  const socket = (): Socket | null => {
    if (closed) return null;
    if (!made) {
      made = make();
      // A task that stopped reading its input (or exited) makes writes fail with EPIPE: what was typed is dropped.
      made.on('error', () => {});
    }
    return made;
  };
  return {
    write(text) {
      const target = socket();
      if (target?.writable) target.write(text);
    },
    end() {
      socket()?.end();
    },
    close() {
      if (closed) return;
      closed = true;
      if (made) made.destroy();
      else closeSync(fd);
    },
  };
}

function socketEnd(socket: Socket): InputEnd {
  socket.on('error', () => {});
  return {
    write: (text) => {
      if (socket.writable) socket.write(text);
    },
    end: () => socket.end(),
    close: () => socket.destroy(),
  };
}

/**
 * Reads the output pipe into one big buffer, again and again (Node's stream path reads 64 KiB at
 * a time and allocates for each): a fast task's output comes in a few large reads, with no stream
 * machinery and no new memory per read. Each chunk is lent to the listener for the call only
 * (RunnerListener.output): the next read overwrites it. A fresh megabyte per read cost more than
 * writing it to the log (its pages are faulted in anew each time).
 */
class ChunkReader {
  readonly buffer = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  deliver: (chunk: Buffer) => void = () => {};

  take(bytes: number): boolean {
    this.deliver(this.buffer.subarray(0, bytes));
    return true;
  }
}

/** Windows has no pipe Drover can hand out as both ends at once here: the two streams are forwarded as they arrive. */
function spawnWindows(launch: { file: string; args: string[] }, env: Record<string, string>, cwd: string): LeaderIo {
  const child = spawn(launch.file, launch.args, {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    windowsVerbatimArguments: true,
  });
  if (child.pid === undefined) {
    child.on('error', () => {});
    throw new Error('could not start a new process');
  }
  const stdout = child.stdout as Socket;
  return new PipeIo(child, child.pid, stdout, socketEnd(child.stdin as Socket), (deliver) => {
    stdout.on('data', deliver);
    child.stderr!.on('data', deliver);
  });
}

class PipeIo implements LeaderIo {
  readonly pid: number;
  readonly #child: ChildProcess;
  readonly #reader: Socket;
  readonly #writer: InputEnd;
  readonly #ended: Promise<void>;
  #lastData = Date.now();
  /** Paused for the log (backpressure): a quiet pipe then means a slow disk, not a stray holder. */
  #paused = false;

  readonly #listen: (deliver: (chunk: Buffer) => void) => void;

  constructor(
    child: ChildProcess,
    pid: number,
    reader: Socket,
    writer: InputEnd,
    listen: (deliver: (chunk: Buffer) => void) => void,
  ) {
    this.#child = child;
    this.#listen = listen;
    this.pid = pid;
    this.#reader = reader;
    this.#writer = writer;
    reader.on('error', () => {});
    this.#ended = new Promise((resolve) => {
      reader.once('end', resolve);
      reader.once('close', resolve);
    });
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.#listen((chunk) => {
      this.#lastData = Date.now();
      listener(chunk);
    });
  }

  onExit(listener: (exit: RunnerExit) => void): void {
    this.#child.once('exit', (code, signal) =>
      listener({
        exitCode: signal ? null : code,
        signal: signal ? (osConstants.signals[signal] ?? null) : null,
      }),
    );
  }

  /** Reads to the end of the output (every writer is gone once the task is empty), then lets go of both pipes. */
  async finish(): Promise<void> {
    this.resume();
    let quiet: NodeJS.Timeout | undefined;
    const stalled = new Promise<void>((resolve) => {
      const check = () => {
        const idle = this.#paused ? 0 : Date.now() - this.#lastData;
        if (idle >= PIPE_DRAIN_QUIET_MS) resolve();
        else quiet = setTimeout(check, PIPE_DRAIN_QUIET_MS - idle);
      };
      check();
    });
    try {
      await Promise.race([this.#ended, stalled]);
    } finally {
      clearTimeout(quiet);
      this.#reader.destroy();
      this.#writer.close();
    }
  }

  pause(): void {
    this.#paused = true;
    this.#reader.pause();
  }

  resume(): void {
    this.#paused = false;
    this.#lastData = Date.now();
    this.#reader.resume();
  }

  /** Text goes to the task's input as typed; Ctrl-C interrupts its process group, Ctrl-D ends its input. */
  write(data: string): void {
    for (const piece of data.split(/([\x03\x04])/)) {
      if (piece === '') continue;
      if (piece === INTERRUPT) this.#interrupt();
      else if (piece === END_OF_INPUT) this.#writer.end();
      else this.#writer.write(piece);
    }
  }

  #interrupt(): void {
    try {
      if (process.platform === 'win32') this.#child.kill('SIGINT');
      else process.kill(-this.pid, 'SIGINT');
    } catch {
      /* the group is gone */
    }
  }

  killLeader(): void {
    this.#child.kill('SIGKILL');
  }
}
