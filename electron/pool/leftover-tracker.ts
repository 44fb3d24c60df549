import { parseMark, type ProcessIdentity, type ReapResult, type Verdict } from '../process/identity.js';
import type { ProcessInspector } from '../process/inspector.js';
import type { TaskRecord } from './task-record.js';
import type { ReapReport } from './pool-types.js';

/** How long a leftover probe answer is reused, so a list does not scan the process table every time. */
export const PROBE_CACHE_MS = 2_000;

/** Asks the OS about records of earlier runs, briefly remembering the answers. */
export class LeftoverTracker {
  readonly #inspector: ProcessInspector;
  readonly #now: () => number;
  readonly #probes = new Map<string, { at: number; verdict: Verdict }>();

  constructor(inspector: ProcessInspector, now: () => number) {
    this.#inspector = inspector;
    this.#now = now;
  }

  /** Whether an orphaned record's processes are provably still running, and if not, why. */
  probe(record: TaskRecord): Verdict {
    const now = this.#now();
    const cached = this.#probes.get(record.id);
    if (cached && now - cached.at < PROBE_CACHE_MS) return cached.verdict;
    // An agent holds no process (pid 0): it is never probed, and its run ended with the Drover that ran it.
    const verdict: Verdict =
      record.kind === 'agent'
        ? { alive: false, reason: 'an agent’s run ends with the Drover that ran it' }
        : record.pid
          ? this.#inspector.probe(identityOf(record))
          : { alive: false, reason: 'it never started' };
    this.#probes.set(record.id, { at: now, verdict });
    return verdict;
  }

  /** Whether a record's processes are proven gone (not merely unprovable), so it may be settled as lost. */
  provenGone(record: TaskRecord): boolean {
    const verdict = this.probe(record);
    return !verdict.alive && !verdict.undetermined;
  }

  /** What a client is told of an orphaned record: whether it still runs, and what became of its processes. */
  describe(record: TaskRecord): { leftover: boolean; orphanNote: string; gone: boolean } {
    const verdict = this.probe(record);
    return verdict.alive
      ? { leftover: true, orphanNote: 'still running from an earlier run', gone: false }
      : { leftover: false, orphanNote: `left by an earlier run: ${verdict.reason}`, gone: !verdict.undetermined };
  }

  /** Ends each record's processes that are provably still running; `ended` records each end. */
  async reapAll(
    records: Iterable<TaskRecord>,
    ended: (record: TaskRecord, pids: number[]) => void,
  ): Promise<ReapReport> {
    const report: ReapReport = { reaped: [], untouched: [] };
    for (const record of records) {
      const result = await this.reap(record);
      if (result.refused !== null) {
        report.untouched.push({ taskId: record.id, reason: result.refused });
        continue;
      }
      ended(record, result.ended);
      report.reaped.push({ taskId: record.id, pids: result.ended });
    }
    return report;
  }

  /** Ends what is provably the record's; the inspector probes again right before it signals. */
  async reap(record: TaskRecord): Promise<ReapResult> {
    this.#probes.delete(record.id);
    const result = await this.#inspector.reap(identityOf(record));
    this.#probes.delete(record.id);
    return result;
  }
}

export function identityOf(record: TaskRecord): ProcessIdentity {
  return {
    taskId: record.id,
    pid: record.pid,
    pgid: record.pgid,
    processStart: record.processStart,
    bootId: record.bootId,
    mark: parseMark(record.mark),
    cgroup: record.cgroup,
    members: record.members,
  };
}
