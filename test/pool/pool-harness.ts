import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { TaskRow } from '../../shared/schemas/task.js';
import { openDatabase } from '../../electron/store/database.js';
import { TasksRepo } from '../../electron/store/tasks-repo.js';
import { CommandRunner } from '../../electron/pool/command-runner.js';
import { TaskPool } from '../../electron/pool/pool.js';
import { currentInspector } from '../../electron/process/inspector.js';
import type { PoolPolicy } from '../../electron/pool/policy.js';
import { tempDir } from '../helpers.js';

export interface Harness {
  pool: TaskPool;
  db: Database;
  dataDir: string;
  sessionId: string;
  rows: TaskRow[];
  open(runId: string, policy?: Partial<PoolPolicy>): TaskPool;
}

/** A real pool on a real database and real processes; only the folder is temporary. */
export function makePool(policy: Partial<PoolPolicy> = {}, dataDir = tempDir()): Harness {
  const db = openDatabase(join(dataDir, 'drover.sqlite'));
  const sessionId = 'sess1';
  db.prepare("INSERT OR IGNORE INTO sessions (id, title, created_at, updated_at) VALUES (?, 't', 0, 0)").run(sessionId);
  const rows: TaskRow[] = [];
  const inspector = currentInspector();
  const open = (runId: string, extra: Partial<PoolPolicy> = {}) =>
    new TaskPool({
      repo: new TasksRepo(db),
      runners: { command: new CommandRunner({ identify: (pid) => inspector.identify(pid).processStart }) },
      inspector,
      dataDir,
      runId,
      listener: { taskChanged: (row) => rows.push(row), taskOutput: () => {} },
      policy: { stopGraceMs: 1_000, ...policy, ...extra },
    });
  return { pool: open('run-1'), db, dataDir, sessionId, rows, open };
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The log as written so far; empty until the file exists. */
export function logText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
