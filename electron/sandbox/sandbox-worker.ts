/**
 * One session's sandbox, in a worker thread of its own (issue 19). @anthropic-ai/sandbox-runtime
 * keeps one policy and one network proxy per module instance, and its proxy cannot tell which
 * session a connection comes from; a worker per session gives each session its own proxy, reached
 * only through the socket bound into that session's sandboxes, so one session's approved hosts are
 * never another's. The worker only wraps commands and answers the proxy: it starts no task.
 */
import { parentPort } from 'node:worker_threads';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { WorkerReply, WorkerRequest } from './sandbox-messages.js';

const port = parentPort;
if (!port) throw new Error('sandbox-worker runs only as a worker thread');

const asks = new Map<number, (allowed: boolean) => void>();
let nextAsk = 1;
let seen = 0;

function send(message: WorkerReply): void {
  port!.postMessage(message);
}

/** The proxy met a host the policy does not list: the main thread asks the person (or refuses). */
function ask({ host, port: destination }: { host: string; port?: number | undefined }): Promise<boolean> {
  const id = nextAsk++;
  return new Promise((resolve) => {
    asks.set(id, resolve);
    send({ t: 'ask', id, host, port: destination ?? 0 });
  });
}

function decodeKey(encoded: string | undefined): string | null {
  if (!encoded) return null;
  try {
    return Buffer.from(encoded, 'base64').toString('utf8');
  } catch {
    return null;
  }
}

/** New violations since the last look, each with the task id it was wrapped under. */
function watchViolations(): void {
  const store = SandboxManager.getSandboxViolationStore();
  store.subscribe((all) => {
    const total = store.getTotalCount();
    const fresh = Math.min(all.length, total - seen);
    seen = total;
    for (const violation of fresh > 0 ? all.slice(-fresh) : []) {
      send({ t: 'violation', taskId: decodeKey(violation.encodedCommand), line: violation.line });
    }
  });
}

async function handle(message: WorkerRequest): Promise<void> {
  switch (message.t) {
    case 'init': {
      try {
        // The library guards the files a command could use to run code later (.git/hooks, .bashrc…)
        // in process.cwd(): here that must be the session's working folder, which a worker cannot
        // chdir to. Its sockets go in a folder of Drover's that no sandbox may write (see
        // SandboxService), so one session's commands cannot remove another's.
        const cwd = message.cwd;
        process.cwd = () => cwd;
        process.env.TMPDIR = message.tmpdir;
        await SandboxManager.initialize(message.config as SandboxRuntimeConfig, ask, true);
        watchViolations();
        send({ t: 'ready' });
      } catch (error) {
        send({ t: 'failed', message: (error as Error).message });
      }
      return;
    }
    case 'update':
      SandboxManager.updateConfig(message.config as SandboxRuntimeConfig);
      return;
    case 'wrap': {
      try {
        const { argv, env } = await SandboxManager.wrapWithSandboxArgv(
          message.command,
          message.shell,
          undefined,
          undefined,
          message.cwd,
          { commandId: message.taskId, commandText: message.commandText },
        );
        // The library answers a whole environment (this process's, plus its own): only its own
        // variables go back, so the task keeps the clean environment the pool gave it.
        const extra: Record<string, string> = {};
        for (const [name, value] of Object.entries(env))
          if (typeof value === 'string' && process.env[name] !== value) extra[name] = value;
        send({ t: 'wrapped', id: message.id, argv, env: extra });
      } catch (error) {
        send({ t: 'error', id: message.id, message: (error as Error).message });
      }
      return;
    }
    case 'answer':
      asks.get(message.id)?.(message.allowed);
      asks.delete(message.id);
      return;
    case 'reset':
      for (const resolve of asks.values()) resolve(false);
      asks.clear();
      await SandboxManager.reset().catch(() => {});
      send({ t: 'reset-done' });
      return;
  }
}

port.on('message', (message: WorkerRequest) => void handle(message));
