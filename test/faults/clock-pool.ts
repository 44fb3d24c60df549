/**
 * A pool in this process with a clock the test moves (PoolOptions.now), over real child processes
 * and a real database file: how the clock faults are made without touching the machine's clock.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openDatabase } from '../../electron/store/database.js';
import { TasksRepo } from '../../electron/store/tasks-repo.js';
import { CommandRunner } from '../../electron/pool/command-runner.js';
import { TaskPool } from '../../electron/pool/pool.js';
import { unixInspector } from '../../electron/process/inspector.js';
import { unixContainers } from '../../electron/process/containers.js';
import { currentUnixOs } from '../../electron/process/unix-os.js';
import { randomId } from '../../electron/core/ids.js';
import { tempDir } from '../helpers.js';
import { newRunMark, readStore, strays } from './fault-kit.js';

export const HOUR = 3_600_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export function poolWithClock() {
  const dataDir = tempDir('drover-fault-');
  const db = openDatabase(join(dataDir, 'drover.sqlite'));
  db.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('clock', 'clock', 0, 0)").run();
  const instanceId = randomId(12);
  const os = currentUnixOs();
  const inspector = unixInspector(os, instanceId);
  const containers = unixContainers({ instanceId, os });
  const clock = { offset: 0 };
  const pool = new TaskPool({
    repo: new TasksRepo(db),
    runners: {
      command: new CommandRunner({
        containers,
        identify: (pid) => inspector.identify(pid).processStart,
        processState: (pid) => os.processState(pid),
      }),
    },
    inspector,
    dataDir,
    runId: 'clock',
    instanceId,
    listener: { taskChanged: () => {}, taskOutput: () => {} },
    policy: { stopGraceMs: 1_000 },
    now: () => Date.now() + clock.offset,
  });
  const runMark = newRunMark();
  let closed = false;
  const close = async () => {
    if (closed) return { integrity: 'closed twice', strays: [] as number[] };
    closed = true;
    await pool.drain();
    db.close();
    containers.dispose();
    return { integrity: readStore(dataDir).integrity, strays: await strays(runMark, instanceId) };
  };
  cleanups.push(async () => void (await close()));
  /** Waits for the file `go` in the data folder, then exits with `code`. */
  const waiting = (code: number, timeoutSeconds?: number) =>
    pool.start({
      sessionId: 'clock',
      command: `echo waiting; while [ ! -e go ]; do sleep 0.02; done; exit ${code}`,
      cwd: dataDir,
      ...(timeoutSeconds ? { timeoutSeconds } : {}),
    });
  const go = () => writeFileSync(join(dataDir, 'go'), '');
  const row = (id: string) => pool.row('clock', id);
  return { pool, clock, waiting, go, row, close };
}
