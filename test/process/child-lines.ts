import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** A real child process and the first line it printed (its port, its child's pid…). */
export interface Started {
  child: ChildProcess;
  line: string;
}

const running: ChildProcess[] = [];

/** Starts `node -e script` and resolves on its first line of output: an event, never a wait for time. */
export async function startNode(script: string, options: SpawnOptions = {}): Promise<Started> {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], ...options });
  running.push(child);
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the child exited (${String(code)}) before printing a line`);
    }),
  ])) as [string];
  return { child, line };
}

/** Resolves when the child has exited (and been reaped), with its signal. */
export async function exited(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.signalCode;
  const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return signal;
}

/** Ends every child a test left running. */
export function killChildren(): void {
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** A server on an OS-chosen port (IPv4, or IPv6 with host '::1') that prints the port. */
export function serverScript(host = '127.0.0.1', ignoreTerm = false): string {
  return (
    (ignoreTerm ? "process.on('SIGTERM', () => {});" : '') +
    `require('net').createServer().listen(0, ${JSON.stringify(host)}, function () { console.log(this.address().port); });`
  );
}
