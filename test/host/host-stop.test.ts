import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import * as pty from '@lydell/node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, until } from '../helpers.js';
import { groupRuns, pidAlive } from '../pool/pool-harness.js';
import { callHost, hostArgs, listeningBase, spawnHost } from './spawn-host.js';

const root = resolve(import.meta.dirname, '../..');
/** A task whose whole group ignores the hangup: only a stop of the group as a whole ends it. */
const SURVIVES_HANGUP = "trap '' HUP; (sleep 120) & sleep 120";

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
});

/** Starts a task that outlives a hangup on the host at `base`; returns its process group. */
async function startStubbornTask(base: string): Promise<number> {
  const session = (await callHost(base, 'POST', '/sessions', {})).id as string;
  const task = await callHost(base, 'POST', `/sessions/${session}/background-tasks`, { command: SURVIVES_HANGUP });
  const pgid = task.pid as number;
  leftovers.push(pgid);
  return pgid;
}

describe('what stops the headless host', () => {
  it('SIGHUP stops every task as a group before the host exits', async () => {
    const host = await spawnHost(tempDir(), process.env, { exitWithStdin: false });
    leftovers.push(host.child.pid!);
    const pgid = await startStubbornTask(host.base);
    expect(await host.stop('SIGHUP')).toBe(0);
    expect(groupRuns(pgid)).toBe(false);
  }, 60_000);

  it('closing the terminal it runs in stops its tasks, though every write to that terminal now fails', async () => {
    const dataDir = tempDir();
    // The host leads the terminal's session, as under a shell the person then closes.
    const terminal = pty.spawn(process.execPath, hostArgs(dataDir, { exitWithStdin: false }), {
      cwd: root,
      cols: 120,
      rows: 30,
      env: process.env,
    });
    leftovers.push(terminal.pid);
    let printed = '';
    terminal.onData((data) => (printed += data));
    await until(() => listeningBase(printed) !== null, 'the host to start', 30_000);
    const pgid = await startStubbornTask(listeningBase(printed)!);
    // Closes the terminal's master side, as a terminal window does when closed: the kernel hangs up
    // the session (SIGHUP) and fails its writes. (node-pty has this method, its typings do not.)
    (terminal as unknown as { destroy(): void }).destroy();
    await until(() => !pidAlive(terminal.pid), 'the host to end with its terminal', 30_000);
    // Stopped as a whole, not left behind: it ignores the hangup that ends the host.
    expect(groupRuns(pgid)).toBe(false);
  }, 60_000);

  it('--exit-with-stdin refuses to start on an input that is not a pipe, saying why', async () => {
    const child = spawn(process.execPath, hostArgs(tempDir()), { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((done) => child.once('exit', done));
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /--exit-with-stdin needs a pipe as standard input, and it is a terminal or a device such as \/dev\/null/,
    );
  }, 60_000);

  it('--exit-with-stdin: a host whose starter dies stops its tasks and exits', async () => {
    const dataDir = tempDir();
    // The starter: holds the only writer of the host's input, and is killed the way a crash kills.
    const starter = spawn(
      process.execPath,
      [
        '-e',
        `const host = require('node:child_process').spawn(process.execPath, ${JSON.stringify(hostArgs(dataDir))}, { stdio: ['pipe', 'inherit', 'inherit'] }); console.log('host pid ' + host.pid); setInterval(() => {}, 1000);`,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    leftovers.push(starter.pid!);
    let printed = '';
    createInterface({ input: starter.stdout! }).on('line', (line) => (printed += `${line}\n`));
    await until(() => listeningBase(printed) !== null, 'the host to start', 30_000);
    const base = listeningBase(printed)!;
    const hostPid = Number(/^host pid (\d+)$/m.exec(printed)![1]);
    leftovers.push(hostPid);
    const pgid = await startStubbornTask(base);
    starter.kill('SIGKILL');
    await until(() => !pidAlive(hostPid), 'the host to end with the script that started it', 30_000);
    expect(groupRuns(pgid)).toBe(false);
  }, 60_000);
});
