import type { ReapReport } from './pool-types.js';
import type { LeftoverTracker } from './leftover-tracker.js';
import { recordLost, recordReaped } from './record-changes.js';
import type { TaskRecord } from './task-record.js';

export interface EarlierRunsOptions {
  leftovers: LeftoverTracker;
  /** This app run: a record of another run that still claims to run is an orphan. */
  runId: string;
  /** Whether this run holds the task live. */
  isLive: (id: string) => boolean;
  save: (record: TaskRecord) => void;
  now: () => number;
}

/**
 * What earlier runs left behind: records still claiming to run. Each is either a leftover (its
 * processes provably still run: stop or reap ends them), lost (provably gone: settled once), or
 * orphaned (it cannot be proven either way, and it stays so).
 */
export class EarlierRuns {
  readonly #o: EarlierRunsOptions;

  constructor(options: EarlierRunsOptions) {
    this.#o = options;
  }

  isOrphaned(record: TaskRecord): boolean {
    return (
      !this.#o.isLive(record.id) &&
      (record.status === 'running' || record.status === 'queued') &&
      record.runId !== this.#o.runId
    );
  }

  /**
   * For a row: what became of an orphan's processes. One found gone during this run is settled as
   * lost here, like at open, and reads as the settled record it now is (null).
   */
  describe(record: TaskRecord): { leftover: boolean; orphanNote: string } | null {
    if (!this.isOrphaned(record)) return null;
    const orphan = this.#o.leftovers.describe(record);
    if (!orphan.gone) return orphan;
    recordLost(record, null);
    this.#o.save(record);
    return null;
  }

  /** Stop by id reaches a leftover too; false when the record is no leftover (settled, lost, or unprovable). */
  async stopLeftover(record: TaskRecord): Promise<boolean> {
    if (!this.isOrphaned(record) || !this.#o.leftovers.probe(record).alive) return false;
    await this.#o.leftovers.reapAll([record], (ended, pids) => this.#reaped(ended, pids));
    return true;
  }

  /** Ends every leftover among these records that is provably still running. */
  reap(records: Iterable<TaskRecord>): Promise<ReapReport> {
    return this.#o.leftovers.reapAll(
      [...records].filter((record) => this.isOrphaned(record)),
      (record, pids) => this.#reaped(record, pids),
    );
  }

  #reaped(record: TaskRecord, pids: number[]): void {
    recordReaped(record, pids, this.#o.now());
    this.#o.save(record);
  }
}
