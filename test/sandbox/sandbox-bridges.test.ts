/**
 * The library starts socat bridges of its own for each session's sandbox; none may outlive the
 * sandbox, even when its worker dies without cleaning up (as it would if Drover crashed).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridgeProgram } from '../../electron/sandbox/sandbox-service.js';
import { SessionRuntime, START_ATTEMPTS } from '../../electron/sandbox/sandbox-runtime.js';
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

describe("the sandbox's start on a busy machine", () => {
  /**
   * A bridge program whose first starts are slow: every start within `slowForMs` of the first
   * sleeps 1.5 s before it runs the real one (the library waits 0.6 s for the bridges' sockets).
   */
  function slowBridges(slowForMs: number): string {
    const dataDir = tempDir();
    const real = bridgeProgram(dataDir, () => {})!;
    const first = join(dataDir, 'first-start');
    const script = join(dataDir, 'slow-bridge');
    writeFileSync(
      script,
      '#!/bin/sh\n' +
        `(set -C; date +%s%N > '${first}') 2>/dev/null\n` +
        `elapsed=$(( ($(date +%s%N) - $(cat '${first}')) / 1000000 ))\n` +
        `[ "$elapsed" -lt ${slowForMs} ] && sleep 1.5\n` +
        `exec '${real}' "$@"\n`,
      { mode: 0o755 },
    );
    return script;
  }
  const runtimeWith = (socatPath: string) =>
    new SessionRuntime(
      {
        socatPath,
        network: { allowedDomains: [], deniedDomains: [], allowLocalBinding: false },
        filesystem: { denyRead: [], allowRead: [socatPath], allowWrite: [tempDir()], denyWrite: [] },
      },
      { ask: async () => false, violation: () => {} },
      { cwd: tempDir(), tmpdir: tempDir() },
    );

  it('bridges too slow for the library at first: started again in a fresh worker, and the sandbox works', async () => {
    const runtime = runtimeWith(slowBridges(500));
    try {
      await runtime.ready();
      const { argv } = await runtime.wrap('bg_1', 'echo inside', 'echo inside', '/bin/sh', tempDir());
      expect(argv.length).toBeGreaterThan(0);
    } finally {
      await runtime.close();
    }
  });

  it(`bridges that stay too slow: the start fails with the library's reason after ${START_ATTEMPTS} tries`, async () => {
    const runtime = runtimeWith(slowBridges(600_000));
    try {
      await expect(runtime.ready()).rejects.toThrow(/bridge sockets/);
    } finally {
      await runtime.close();
    }
  });
});
