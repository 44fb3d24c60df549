/**
 * The library starts socat bridges of its own for each session's sandbox; none may outlive the
 * sandbox, even when its worker dies without cleaning up (as it would if Drover crashed).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bridgeProgram } from '../../electron/sandbox/sandbox-service.js';
import { SessionRuntime } from '../../electron/sandbox/sandbox-runtime.js';
import { tempDir, until } from '../helpers.js';

/**
 * Live socat processes whose parent is this process (the bridges the worker thread started). One
 * that was killed after its worker ended stays a zombie until this process exits (nothing is left
 * to reap it): it runs nothing and holds nothing, so it counts as ended.
 */
function bridges(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,stat=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, comm]) => comm === 'socat' && !stat?.startsWith('Z'))
    .map(([pid]) => Number(pid));
}

describe("the sandbox's network bridges", () => {
  it('end with the worker that started them, even when it is killed without cleaning up', async () => {
    const dataDir = tempDir();
    const socatPath = bridgeProgram(dataDir, () => {});
    expect(socatPath).not.toBeNull();
    const before = new Set(bridges());
    const runtime = new SessionRuntime(
      {
        socatPath: socatPath!,
        network: { allowedDomains: [], deniedDomains: [], allowLocalBinding: false },
        filesystem: { denyRead: [], allowWrite: [tempDir()], denyWrite: [] },
      },
      { ask: async () => false, violation: () => {} },
      { cwd: tempDir(), tmpdir: tempDir() },
    );
    await runtime.ready();
    await until(() => bridges().some((pid) => !before.has(pid)), 'a bridge to start');
    const started = bridges().filter((pid) => !before.has(pid));
    // The worker dies as in a crash: no reset, nothing of the library's cleanup runs.
    await runtime.terminateAbruptly();
    await until(() => started.every((pid) => !bridges().includes(pid)), 'the bridges to end', 5_000);
  });
});
