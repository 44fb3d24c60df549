import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerReply, WorkerRequest } from './sandbox-messages.js';

/** What the library is configured with (its own schema checks it again in the worker). */
export interface RuntimeConfig {
  network: {
    allowedDomains: string[];
    deniedDomains: string[];
    allowUnixSockets?: string[];
    allowAllUnixSockets?: boolean;
    allowLocalBinding: boolean;
  };
  filesystem: { denyRead: string[]; allowRead?: string[]; allowWrite: string[]; denyWrite: string[] };
  /** The program the library starts as its host-side bridges (Linux); see bridgeProgram(). */
  socatPath?: string;
}

export interface RuntimeHooks {
  /** The proxy met a host nothing allows: true lets this connection through. */
  ask(host: string, port: number): Promise<boolean>;
  /** The sandbox refused something; `taskId` is the task it was wrapped for (null when unknown). */
  violation(taskId: string | null, line: string): void;
}

/** tsx's API, for running the worker from source; never loaded by the built app. */
const SOURCE_LOADER = ['tsx', 'esm', 'api'].join('/');

/** The worker's file: the built one next to the bundle, or the source under tsx (tests, `npm run serve` from source). */
function workerSource(): { code: string; eval: true } | { file: string; eval: false } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const source = new URL('./sandbox-worker.ts', import.meta.url).href;
    // Only from the TypeScript sources (tests, benches), where the dev dependencies are installed:
    // Node 20's workers ignore --import in execArgv, so tsx's loader is registered inside. The
    // built app never takes this branch (its worker is sandbox-worker.js).
    const loader = JSON.stringify(SOURCE_LOADER);
    return {
      code: `import(${loader}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`,
      eval: true,
    };
  }
  for (const folder of [dirname(here), dirname(dirname(here))]) {
    const file = join(folder, 'sandbox-worker.js');
    // In the packaged app the worker is unpacked beside the archive (electron-builder.yml): a worker
    // thread cannot load from inside app.asar.
    if (existsSync(file)) return { file: file.replace(`app.asar${sep}`, `app.asar.unpacked${sep}`), eval: false };
  }
  throw new Error(`the sandbox worker (sandbox-worker.js) is missing next to ${here}`);
}

/**
 * The library gives its two host-side bridges 0.6 s in all to make their sockets (Linux), and on a
 * machine busy enough they need longer: the start fails with "Failed to create bridge sockets".
 * That failure alone is tried again, in a fresh worker (the library's state is per worker, and its
 * own cleanup of the failed start runs on in the background), up to this many starts in all.
 */
export const START_ATTEMPTS = 3;
const SLOW_BRIDGES = /failed to create bridge sockets/i;

/**
 * One session's sandbox: a worker thread holding @anthropic-ai/sandbox-runtime with the session's
 * policy and its own network proxy. Commands are wrapped here and run by the pool as usual.
 */
export class SessionRuntime {
  #worker: Worker;
  #config: RuntimeConfig;
  readonly #place: { cwd: string; tmpdir: string };
  readonly #hooks: RuntimeHooks;
  readonly #waiting = new Map<
    number,
    { resolve: (value: { argv: string[]; env: Record<string, string> }) => void; reject: (error: Error) => void }
  >();
  readonly #ready: Promise<void>;
  #nextId = 1;
  #closed: Promise<void> | null = null;
  #dead: Error | null = null;

  #started: () => void = () => {};
  #failed: (error: Error) => void = () => {};

  constructor(config: RuntimeConfig, hooks: RuntimeHooks, place: { cwd: string; tmpdir: string }) {
    this.#hooks = hooks;
    this.#config = config;
    this.#place = place;
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#started = resolve;
      this.#failed = reject;
    });
    this.#worker = this.#spawn(1);
  }

  /** A worker with the library, started with the latest configuration: the `attempt`th start. */
  #spawn(attempt: number): Worker {
    const source = workerSource();
    const worker = source.eval ? new Worker(source.code, { eval: true }) : new Worker(source.file);
    worker.unref();
    worker.on('message', (message: WorkerReply) => {
      if (message.t === 'failed' && attempt < START_ATTEMPTS && SLOW_BRIDGES.test(message.message) && !this.#closed) {
        // Its bridges end with it (bridgeProgram); its other handlers go first, so its end is no death.
        worker.removeAllListeners();
        worker.on('error', () => {});
        void worker.terminate();
        this.#worker = this.#spawn(attempt + 1);
        return;
      }
      this.#receive(message);
    });
    const die = (error: Error) => {
      this.#dead = error;
      this.#failed(error);
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`the sandbox worker stopped (exit ${code})`)));
    worker.postMessage({ t: 'init', config: this.#config, cwd: this.#place.cwd, tmpdir: this.#place.tmpdir });
    return worker;
  }

  #receive(message: WorkerReply): void {
    switch (message.t) {
      case 'ready':
        this.#started();
        return;
      case 'failed':
        this.#failed(new Error(message.message));
        return;
      case 'wrapped':
        this.#waiting.get(message.id)?.resolve({ argv: message.argv, env: message.env });
        this.#waiting.delete(message.id);
        return;
      case 'error':
        this.#waiting.get(message.id)?.reject(new Error(message.message));
        this.#waiting.delete(message.id);
        return;
      case 'ask':
        void this.#hooks
          .ask(message.host, message.port)
          .catch(() => false)
          .then((allowed) => this.#send({ t: 'answer', id: message.id, allowed }));
        return;
      case 'violation':
        this.#hooks.violation(message.taskId, message.line);
        return;
      case 'reset-done':
        return;
    }
  }

  /** The worker has stopped (crashed, or failed to start): this runtime wraps nothing more. */
  get dead(): boolean {
    return this.#dead !== null;
  }

  /** Resolves once the proxy is listening; rejects with the library's reason when it cannot start. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** The argv that runs `command` through `shell` inside the sandbox, and the variables it needs. */
  async wrap(
    taskId: string,
    command: string,
    commandText: string,
    shell: string,
    cwd: string,
  ): Promise<{ argv: string[]; env: Record<string, string> }> {
    await this.#ready;
    if (this.#dead) throw this.#dead;
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#send({ t: 'wrap', id, taskId, command, commandText, shell, cwd });
    });
  }

  /** A new policy: the network lists apply at once, to running tasks too; paths from the next command on. */
  update(config: RuntimeConfig): void {
    this.#config = config;
    this.#send({ t: 'update', config });
  }

  /** Stops the proxy and its helpers, then the worker. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      if (!this.#dead) {
        const done = new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 2000);
          this.#worker.on('message', (message: WorkerReply) => {
            if (message.t === 'reset-done') {
              clearTimeout(timer);
              resolve();
            }
          });
        });
        this.#send({ t: 'reset' });
        await done;
      }
      await this.#worker.terminate();
    })();
    return this.#closed;
  }

  /** Ends the worker at once, without the library's cleanup: what a crash does (the bridges' test proves they still end). */
  terminateAbruptly(): Promise<number> {
    return this.#worker.terminate();
  }

  #send(message: WorkerRequest): void {
    if (!this.#dead) this.#worker.postMessage(message);
  }
}
