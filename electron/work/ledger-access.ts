import { DroverError } from '../../shared/ipc/errors.js';
import { sqliteProblem } from '../store/sqlite-errors.js';
import { workDatabaseFile } from './work-db.js';
import { WorkLedger, type WorkLedgerOptions } from './work-ledger.js';
import type { OpenWorkDatabaseOptions } from './work-db.js';

/**
 * The work ledger, opened on first use and again after a failure: Drover starts (and serves its
 * sessions) when work.sqlite cannot be opened, on a full disk say, and the ledger's callers get an
 * error naming why until it can.
 */
export class LedgerAccess {
  readonly #dataDir: string;
  readonly #options: WorkLedgerOptions & OpenWorkDatabaseOptions;
  #ledger: WorkLedger | null = null;
  #closed = false;

  constructor(dataDir: string, options: WorkLedgerOptions & OpenWorkDatabaseOptions = {}) {
    this.#dataDir = dataDir;
    this.#options = options;
  }

  /** The open ledger; throws an error saying why it could not be opened. */
  get(): WorkLedger {
    if (this.#ledger) return this.#ledger;
    if (this.#closed) throw new DroverError('unavailable', 'Drover is shutting down: the work ledger is closed');
    try {
      this.#ledger = WorkLedger.open(this.#dataDir, this.#options);
    } catch (error) {
      if (error instanceof DroverError) throw error;
      throw (
        sqliteProblem(error, workDatabaseFile(this.#dataDir)) ??
        new DroverError('unavailable', `The work ledger could not be opened: ${(error as Error).message}`)
      );
    }
    return this.#ledger;
  }

  close(): void {
    this.#closed = true;
    this.#ledger?.close();
    this.#ledger = null;
  }
}
