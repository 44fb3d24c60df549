import { isSettled, type TaskOutput, type TaskRow } from '../../shared/schemas/task.js';
import type { FinishedCursor, FinishedFilter, FinishedPage, OpenTasks } from '../../shared/schemas/task-page.js';
import type { EarlierRuns } from './earlier-runs.js';
import type { Live } from './live-task.js';
import type { PoolPolicy } from './policy.js';
import type { PoolOptions } from './pool-types.js';
import { readableOutput } from './readable-output.js';
import type { SettledOrder } from './settled-order.js';
import type { TaskIndex } from './task-index.js';
import { readLogTail } from './log-reads.js';
import type { TaskRecord } from './task-record.js';
import { toTaskRow } from './task-row.js';
import type { TaskSignals } from './task-signals.js';

export interface TaskViewsOptions {
  index: Pick<TaskIndex, 'records' | 'require' | 'settledRow' | 'keepSettledRow' | 'settledOrder'>;
  /** The pool's unsettled tasks, by id. */
  lives: ReadonlyMap<string, Live>;
  earlier: Pick<EarlierRuns, 'describe'>;
  signals: Pick<TaskSignals, 'portsOf' | 'listening'>;
  /** This app run: a record of another run that still claims to run is an orphan. */
  runId: string;
  /** The pool's own policy object, read at each call. */
  policy: Pick<PoolPolicy, 'silentAfterMs' | 'persistedReadBytes'>;
  /** A runner that says how its log reads (agents) is asked; the rest read as terminal output. */
  runners: PoolOptions['runners'];
  now: () => number;
}

/**
 * The tasks as clients see them: their rows (a settled row is computed once), their output,
 * the ports they listen on. Reading a row may settle an orphan found gone; nothing else here writes.
 */
export class TaskViews {
  readonly #o: TaskViewsOptions;

  constructor(options: TaskViewsOptions) {
    this.#o = options;
  }

  /** Every task of a session, oldest first, as clients see them. */
  list(sessionId: string): TaskRow[] {
    const now = this.#o.now();
    return [...this.#o.index.records(sessionId).values()].map((record) => this.row(record, now));
  }

  /** What the tasks panel opens with (openTasks over `list`): the rows kept settled come sorted already. */
  open(sessionId: string, filter: FinishedFilter, limit: number): OpenTasks {
    const order = this.#order(sessionId);
    return order.open(this.#rowsBesides(sessionId, order), filter, limit);
  }

  /** A later page of the Finished list (finishedPage over `list`). */
  finishedPage(sessionId: string, filter: FinishedFilter, after: FinishedCursor | null, limit: number): FinishedPage {
    const order = this.#order(sessionId);
    return order.page(this.#rowsBesides(sessionId, order), filter, after, limit);
  }

  /** The session's settled rows in the Finished order, each row made (and kept) once. */
  #order(sessionId: string): SettledOrder {
    const now = this.#o.now();
    return this.#o.index.settledOrder(sessionId, (record) => void this.row(record, now));
  }

  /** The session's rows the order does not hold, oldest first. */
  #rowsBesides(sessionId: string, order: SettledOrder): TaskRow[] {
    const now = this.#o.now();
    const rows: TaskRow[] = [];
    for (const record of this.#o.index.records(sessionId).values()) {
      if (!order.has(record.id)) rows.push(this.row(record, now));
    }
    return rows;
  }

  row(record: TaskRecord, now: number = this.#o.now()): TaskRow {
    const cached = this.#o.index.settledRow(record.id);
    if (cached) return cached;
    const live = this.#o.lives.get(record.id);
    const orphan = this.#o.earlier.describe(record);
    const row = toTaskRow(record, {
      now,
      runId: this.#o.runId,
      lastOutputAt: live?.lastOutputAt ?? null,
      silentAfterMs: this.#o.policy.silentAfterMs,
      leftover: orphan?.leftover ?? false,
      orphanNote: orphan?.orphanNote ?? null,
      leaderExited: live?.leaderExited ?? false,
      ports: live ? this.#o.signals.portsOf(record.id) : [],
    });
    // An orphaned row's elapsed time keeps growing, so only truly settled rows are kept.
    if (!live && row.status !== 'orphaned' && isSettled(row.status)) this.#o.index.keepSettledRow(row);
    return row;
  }

  /** The output as a person would read it; from memory while running, else from the log's tail. */
  async output(sessionId: string, id: string, tailLines?: number): Promise<TaskOutput> {
    const record = this.#o.index.require(sessionId, id);
    const live = this.#o.lives.get(id);
    const source = live
      ? { bytes: live.window.bytes(), totalBytes: live.window.totalBytes, truncated: live.window.truncated }
      : await readLogTail(record.logPath, this.#o.policy.persistedReadBytes);
    const runner = this.#o.runners[record.kind];
    if (runner?.readable)
      return {
        text: runner.readable(source.bytes.toString('utf8'), tailLines),
        totalBytes: source.totalBytes,
        truncated: source.truncated,
      };
    return readableOutput(source, tailLines);
  }

  /** Every TCP port a running task of this run listens on, with the task's session and command. */
  listeningPorts(): { port: number; pid: number; taskId: string; sessionId: string; command: string }[] {
    return this.#o.signals.listening().flatMap((entry) => {
      const live = this.#o.lives.get(entry.taskId);
      return live ? [{ ...entry, sessionId: live.record.sessionId, command: live.record.command }] : [];
    });
  }
}
