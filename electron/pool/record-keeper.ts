import type { TasksRepo } from '../store/tasks-repo.js';
import type { LeftoverTracker } from './leftover-tracker.js';
import type { DiskReporter } from './pool-types.js';
import { recordLost } from './record-changes.js';
import type { TaskRecord } from './task-record.js';

/**
 * How often running tasks are recorded as seen alive. A crash loses at most this much of a task's
 * elapsed time; more often would cost a write per task for nothing a person can see.
 */
export const HEARTBEAT_MS = 60_000;

export interface RecordKeeperOptions {
  repo: TasksRepo;
  runId: string;
  leftovers: LeftoverTracker;
  disk: DiskReporter | undefined;
  log: (message: string) => void;
  now: () => number;
  /** The records of this run's running tasks, for the heartbeat. */
  running: () => TaskRecord[];
  heartbeatMs?: number;
}

/**
 * Writes the pool's records, and never lets a failed write end a task's life: a row that cannot be
 * written (a full disk, mostly) stays in memory and is written again later. Also keeps the
 * heartbeat of running tasks and, at open, settles what an earlier run left behind.
 */
export class RecordKeeper {
  readonly #o: RecordKeeperOptions;
  /** Changed in memory, not yet on disk: written again when room returns, or at the next heartbeat. */
  readonly #unsaved = new Set<TaskRecord>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(options: RecordKeeperOptions) {
    this.#o = options;
    this.#heartbeat = setInterval(() => this.#beat(), options.heartbeatMs ?? HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** Writes a changed record; a failure is remembered for a later write, and logged unless it is a full disk the page already shows. */
  write(record: TaskRecord): void {
    try {
      this.#o.repo.update(record);
      this.#unsaved.delete(record);
    } catch (error) {
      this.#unsaved.add(record);
      if (!this.#o.disk?.noteFailure(error))
        this.#o.log(`task ${record.id} could not be saved (Drover tries again later): ${(error as Error).message}`);
    }
  }

  /** Writes what could not be written before, oldest first; a full disk stops the round, any other failure only that record. */
  writeUnsaved(): void {
    for (const record of [...this.#unsaved]) {
      try {
        this.#o.repo.update(record);
        this.#unsaved.delete(record);
      } catch (error) {
        if (this.#o.disk?.noteFailure(error)) return;
      }
    }
  }

  /**
   * At open: every record an earlier run left claiming to run whose processes are provably gone is
   * settled once as lost. Records whose processes still run stay orphaned leftovers until reaped.
   */
  settleLostOrphans(): TaskRecord[] {
    let records: TaskRecord[];
    try {
      records = this.#o.repo.unsettledOfOtherRuns(this.#o.runId, this.#o.log);
    } catch (error) {
      this.#o.log(`the tasks left by an earlier run could not be read: ${(error as Error).message}`);
      return [];
    }
    const lost = records.filter((record) => this.#o.leftovers.provenGone(record));
    for (const record of lost) {
      recordLost(record, null);
      this.write(record);
    }
    // Returned so the pool's index uses these very records: one not yet written (a full disk) is
    // written later, and is never shown as the stale row the store still holds.
    return lost;
  }

  stop(): void {
    clearInterval(this.#heartbeat);
  }

  /** Records every running task of this run as seen alive now, in one transaction. */
  #beat(): void {
    this.writeUnsaved();
    const running = this.#o.running();
    if (running.length === 0) return;
    const now = this.#o.now();
    for (const record of running) record.seenAt = now;
    try {
      this.#o.repo.seen(
        running.map((record) => record.id),
        now,
      );
    } catch (error) {
      if (!this.#o.disk?.noteFailure(error))
        this.#o.log(`the running tasks could not be recorded as seen: ${(error as Error).message}`);
    }
  }
}
