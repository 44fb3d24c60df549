import type { TaskRow } from '../../shared/schemas/task.js';
import { isSettled } from '../../shared/schemas/task.js';
import { didNotSucceed } from '../agent/task-words.js';
import type { WorkLedger } from './work-ledger.js';

/** Why a linked task's end blocks its work item, in words; null when it does not (it succeeded, or exit 1 of grep). */
export function blockedReasonFor(row: TaskRow): string | null {
  if (row.status === 'stopped') return `${row.id} (${short(row.command)}) was stopped`;
  if (!didNotSucceed(row)) return null;
  const exit = row.exitCode !== null ? `, exit code ${row.exitCode}` : '';
  return `${row.id} (${short(row.command)}) ${row.status === 'timed_out' ? 'timed out' : 'failed'}${exit}`;
}

function short(command: string): string {
  return command.length > 60 ? `${command.slice(0, 57)}…` : command;
}

/**
 * Ties background work to the work items it serves: when a task started for an item fails, times
 * out or is stopped, the item is marked blocked with the reason. Each task's end is told once, and
 * only ends of this run (a row saved again after a restart is not news).
 */
export class WorkLinks {
  readonly #ledger: () => WorkLedger;
  readonly #changed: (listId: string) => void;
  readonly #log: (message: string) => void;
  readonly #told = new Set<string>();
  readonly #since = Date.now();

  constructor(options: {
    ledger: () => WorkLedger;
    changed: (listId: string) => void;
    log: (message: string) => void;
  }) {
    this.#ledger = options.ledger;
    this.#changed = options.changed;
    this.#log = options.log;
  }

  onTaskChanged(row: TaskRow): void {
    if (!row.workItem || !isSettled(row.status) || row.status === 'orphaned' || this.#told.has(row.id)) return;
    if (row.endedAt !== null && Date.parse(row.endedAt) < this.#since) return;
    this.#told.add(row.id);
    const { listId, itemId } = row.workItem;
    try {
      const ledger = this.#ledger();
      // A finished item is not blocked by what ends after it (a dev server stopped once the work is done).
      if (ledger.get(listId, itemId).status === 'completed') return;
      // A linked task that succeeds lifts an earlier block (the build passes on the rerun).
      const reason = blockedReasonFor(row);
      if (reason === null && row.status !== 'succeeded') return;
      if (ledger.setBlockedReason(listId, itemId, reason)) this.#changed(listId);
    } catch (error) {
      this.#log(`work item ${row.workItem.itemId} could not be marked blocked: ${(error as Error).message}`);
    }
  }
}
