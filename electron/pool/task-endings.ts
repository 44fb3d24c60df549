import { DroverError } from '../../shared/ipc/errors.js';
import { cwdVanished } from './command-runner.js';
import type { EarlierRuns } from './earlier-runs.js';
import type { Live, OutputTicks } from './live-task.js';
import { noteLogAtEnd } from './log-room.js';
import type { PoolPolicy } from './policy.js';
import type { EndReason, PoolListener } from './pool-types.js';
import { noteOutside, recordEnd, stuckText } from './record-changes.js';
import { StuckError, type RunnerExit } from './runner.js';
import type { Scheduler } from './scheduler.js';
import type { TaskIndex } from './task-index.js';
import type { TaskRecord } from './task-record.js';
import type { TaskSignals } from './task-signals.js';

export interface TaskEndingsOptions {
  index: Pick<TaskIndex, 'require'>;
  /** The pool's unsettled tasks, by id: a task leaves it once its end is recorded. */
  lives: Map<string, Live>;
  scheduler: Pick<Scheduler, 'withdraw'>;
  earlier: Pick<EarlierRuns, 'stopLeftover'>;
  /** The pool's own policy object: read at each stop, so a changed grace applies at once. */
  policy: Pick<PoolPolicy, 'stopGraceMs'>;
  signals: Pick<TaskSignals, 'ended' | 'stopping'>;
  dataDir: string;
  listener: Pick<PoolListener, 'taskOutput'>;
  /** The shared output tick: an ending task reports its last output itself. */
  ticks: Pick<OutputTicks, 'drop'>;
  save: (record: TaskRecord) => void;
  /** After drain: nothing is written any more. */
  closed: () => boolean;
  /** A task's end was recorded: its room may go to a queued task. */
  ended: () => Promise<void>;
  now: () => number;
}

/**
 * How tasks end: by themselves, on request, at their hard timeout, at shutdown. Each end is
 * recorded once. Processes that outlive a stop are written on the task's row and reported to
 * the caller; processes found outside the task's container by its mark are named once ended.
 */
export class TaskEndings {
  readonly #o: TaskEndingsOptions;

  constructor(options: TaskEndingsOptions) {
    this.#o = options;
  }

  /** Ends a task early: `reason` is recorded (stopped by the operator, cancelled turn, refused adoption). */
  async stop(
    sessionId: string,
    id: string,
    reason: EndReason = 'stopped',
    detail?: string,
  ): Promise<{ record: TaskRecord; wasSettled: boolean }> {
    const record = this.#o.index.require(sessionId, id);
    const live = this.#o.lives.get(id);
    if (!live) {
      // A leftover of an earlier run is reached by id too; anything else settled stays as it is.
      return { record, wasSettled: !(await this.#o.earlier.stopLeftover(record)) };
    }
    live.endReason ??= reason;
    live.endDetail ??= detail ?? null;
    this.#o.signals.stopping(id);
    if (this.#o.scheduler.withdraw(live)) {
      await this.settle(live, { exitCode: null, signal: null });
    } else {
      // A start in flight is let finish: what it started is then stopped, not left running unseen.
      await live.launched;
      if (live.handle && !live.settling) {
        try {
          live.outside.push(...(await live.handle.stop(this.#o.policy.stopGraceMs)).outside);
        } catch (error) {
          throw this.#notEnded(live, error);
        }
      }
    }
    const settled = await live.settled;
    this.#noteOutside(live);
    return { record: settled, wasSettled: false };
  }

  /** Stops each task, all at once; returns the failures (tasks that would not end). */
  async stopAll(lives: Live[], detail: string): Promise<Error[]> {
    const results = await Promise.allSettled(
      lives.map((live) => this.stop(live.record.sessionId, live.record.id, 'shutdown', detail)),
    );
    return results.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
  }

  /** (Re)arms a task's hard timeout, counted from its start. */
  armTimeout(live: Live): void {
    if (live.timer) clearTimeout(live.timer);
    const started = live.record.startedAt ?? this.#o.now();
    const remaining = Math.max(0, started + live.record.timeoutSeconds * 1000 - this.#o.now());
    live.timer = setTimeout(() => {
      live.endReason ??= 'timed_out';
      this.#o.signals.stopping(live.record.id);
      live.handle
        ?.stop(this.#o.policy.stopGraceMs)
        .then((report) => {
          live.outside.push(...report.outside);
          return live.settled.then(() => this.#noteOutside(live));
        })
        .catch((error: unknown) => void this.#notEnded(live, error));
    }, remaining);
    live.timer.unref?.();
  }

  /** Records a task's end (its exit, or `forced` when it could not start); once, and never after drain. */
  async settle(live: Live, exit: RunnerExit, forced?: 'failed'): Promise<void> {
    if (live.settling || this.#o.closed()) return;
    live.settling = true;
    if (live.timer) clearTimeout(live.timer);
    this.#o.ticks.drop(live);
    // It stays live (waitFor waits on it) until its log is flushed and its record final.
    await live.log?.close();
    this.#o.lives.delete(live.record.id);
    const record = live.record;
    this.#o.signals.ended(record);
    if (live.log) noteLogAtEnd(record, this.#o.dataDir, live.log);
    recordEnd(record, {
      exit,
      forced,
      reason: live.endReason,
      detail: live.endDetail,
      logError: live.log?.error ?? null,
      cwdGone: cwdVanished(record.cwd),
      now: this.#o.now(),
    });
    this.#o.save(record);
    this.#o.listener.taskOutput(record.sessionId, record.id, live.window.totalBytes);
    live.resolveSettled(record);
    await this.#o.ended();
  }

  /** A stop that failed (processes outlived SIGKILL, mostly): the row says so and the caller gets the error; the task stays watched. */
  #notEnded(live: Live, error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    live.record.error = error instanceof StuckError ? stuckText(error) : `It could not be stopped: ${message}`;
    this.#o.save(live.record);
    return new DroverError('conflict', `Task ${live.record.id} did not end: ${message}`);
  }

  /** After a stop: processes that had left the task's container but carried its mark were ended too, and are named. */
  #noteOutside(live: Live): void {
    if (live.outside.length === 0 || this.#o.closed()) return;
    noteOutside(live.record, [...new Set(live.outside)]);
    live.outside = [];
    this.#o.save(live.record);
  }
}
