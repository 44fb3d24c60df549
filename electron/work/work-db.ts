import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Migration } from '../store/migrations/index.js';
import { openSharedDatabase, SHARED_BUSY_TIMEOUT_MS } from '../store/shared-db.js';
import { workMigrations } from './work-migrations.js';

/** The ledger's file in the data folder; every process sharing a list opens this same file. */
export const WORK_DATABASE_FILE = 'work.sqlite';

/** How long a writer waits for another process's transaction before giving up with "busy". */
export const WORK_BUSY_TIMEOUT_MS = SHARED_BUSY_TIMEOUT_MS;

export function workDatabaseFile(dataDir: string): string {
  return join(dataDir, WORK_DATABASE_FILE);
}

export interface OpenWorkDatabaseOptions {
  migrations?: readonly Migration[];
  nativeBinding?: string;
}

/**
 * Opens `<dataDir>/work.sqlite` for one process among several (see openSharedDatabase). Unlike
 * Drover's own database there is no folder lock and no clean-close note: other processes (a second
 * Drover, a sub-agent, a script) may hold this file open at any time.
 */
export function openWorkDatabase(dataDir: string, options: OpenWorkDatabaseOptions = {}): Database {
  return openSharedDatabase(dataDir, WORK_DATABASE_FILE, options.migrations ?? workMigrations, options);
}
