import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { DroverError } from '../../shared/ipc/errors.js';
import { isSettled, type TaskOutput, type TaskRow } from '../../shared/schemas/task.js';
import type { TasksRepo } from '../store/tasks-repo.js';
import { describeExit } from './exit-codes.js';
import { OutputWindow } from './output-window.js';
import { DEFAULT_POLICY, resolveTimeoutSeconds, type PoolPolicy } from './policy.js';
import { LeftoverTracker } from './leftover-tracker.js';
import { StartError, StuckError, type RunnerExit, type RunnerHandle } from './runner.js';
import { capacityProblem } from './capacity.js';
import { cwdVanished } from './command-runner.js';
import { formatMark, markFor } from '../process/identity.js';
import { TaskLog, readLogTail } from './task-log.js';
import { taskId, type TaskRecord } from './task-record.js';
import { toTaskRow } from './task-row.js';
import { readableOutput } from './readable-output.js';
import { endReasonText, inBackground, plural, type EndReason, type PoolListener, type PoolOptions, type ReapReport, type StartRequest } from './pool-types.js';

export type { PoolListener, PoolOptions, ReapReport, StartRequest } from './pool-types.js';

/** Output events for one task are batched to at most one per this many ms. */
export const OUTPUT_EVENT_INTERVAL_MS = 250;


/** A task of this run that has not settled: its handle, output window and log. */
interface Live {
  record: TaskRecord;
  window: OutputWindow;
  log: TaskLog | null;
  handle: RunnerHandle | null;
  lastOutputAt: number | null;
  timer: NodeJS.Timeout | null;
  endReason: EndReason | null;
  endDetail: string | null;
  settled: Promise<TaskRecord>;
  resolveSettled: (record: TaskRecord) => void;
  outputTimer: NodeJS.Timeout | null;
  /** Started, runner not yet answered: counts against the caps. */
  launching: boolean;
  /** Its shell exited while other processes of it still run. */
  leaderExited: boolean;
  /** Processes found outside its container by its mark and ended with it. */
  outside: number[];
  /** Its end is being recorded. */
  settling: boolean;
}

/**
 * The task pool of one app run. Foreground and background work share one path: a record,
 * a log, a runner, a hard timeout. Background tasks obey the concurrency cap and queue in
 * start order; a foreground run starts at once and may later be adopted.
 */
export class TaskPool {
  readonly policy: PoolPolicy;
  readonly #repo: TasksRepo;
  readonly #runners: PoolOptions['runners'];
  readonly #dataDir: string;
  readonly #runId: string;
  readonly #instanceId: string;
  readonly #listener: PoolListener;
  readonly #now: () => number;
  /** The boot this run belongs to; recorded with every process so a later run can rule out a reboot. */
  readonly #bootId: string | null;
  readonly #leftovers: LeftoverTracker;
  /** Every record of the sessions seen so far, loaded once per session; the pool is the only writer. */
  readonly #sessions = new Map<string, Map<string, TaskRecord>>();
  readonly #live = new Map<string, Live>();
  readonly #queue: Live[] = [];
  /** Rows of settled records never change within a run: computed once, dropped when the record is saved. */
  readonly #settledRows = new Map<string, TaskRow>();
  #draining = false;
  /** After drain: nothing is written any more (the store may be closed); what would not end stays recorded as running. */
  #closed = false;

  constructor(options: PoolOptions) {
    this.policy = { ...DEFAULT_POLICY, ...options.policy };
    this.#repo = options.repo;
    this.#runners = options.runners;
    this.#dataDir = options.dataDir;
    this.#runId = options.runId;
    this.#instanceId = options.instanceId;
    this.#listener = options.listener;
    this.#now = options.now ?? Date.now;
    this.#leftovers = new LeftoverTracker(options.inspector, this.#now);
    this.#bootId = options.inspector.identify(process.pid).bootId;
  }

  get runId(): string {
    return this.#runId;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Background tasks of this run now running (the caps count these), in one session or in all. */
  runningCount(sessionId?: string): number {
    let count = 0;
    for (const live of this.#live.values()) {
      if (sessionId !== undefined && live.record.sessionId !== sessionId) continue;
      if ((live.launching || live.record.status === 'running') && inBackground(live.record)) count++;
    }
    return count;
  }

  get runningBackgroundCount(): number {
    return this.runningCount();
  }

  /** Why one more background task of this session cannot run now, or null. */
  #capacityProblem(sessionId: string): string | null {
    return capacityProblem({ session: this.runningCount(sessionId), total: this.runningCount() }, this.policy);
  }

  /** Starts a background task, or queues it behind the cap. A task that cannot start settles as failed with the reason. */
  async start(request: StartRequest): Promise<TaskRecord> {
    if (!this.policy.enabled) throw new DroverError('unavailable', 'Background tasks are turned off in the settings');
    if (this.#draining) throw new DroverError('unavailable', 'Drover is shutting down and takes no new tasks');
    const live = this.#create(request, false);
    this.#queue.push(live);
    await this.#pump();
    return live.record;
  }

  /** Starts a foreground run at once, outside the cap. The caller waits on it and may adopt it. */
  async startForeground(request: StartRequest): Promise<TaskRecord> {
    if (this.#draining) throw new DroverError('unavailable', 'Drover is shutting down and takes no new tasks');
    const live = this.#create(request, true);
    await this.#launch(live);
    return live.record;
  }

  /** Resolves with the settled record, or null if `ms` passes first (or the signal aborts). */
  async waitFor(id: string, ms: number, signal?: AbortSignal): Promise<TaskRecord | null> {
    const live = this.#live.get(id);
    if (!live) return this.#find(id) ?? null;
    if (signal?.aborted) return null;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const expired = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
      onAbort = () => resolve(null);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([live.settled, expired]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Hands a foreground run that outlived its wait to the background. Returns the reason it
   * could not be taken over, or null when it was.
   */
  adopt(id: string): string | null {
    const live = this.#live.get(id);
    if (!live || !live.record.foreground || live.record.adopted) return null;
    if (!this.policy.enabled) return 'background tasks are turned off in the settings';
    if (this.#draining) return 'Drover is shutting down';
    const full = this.#capacityProblem(live.record.sessionId);
    if (full) return full;
    const record = live.record;
    record.adopted = true;
    record.notify = false;
    // No estimate stands behind it, and the limit it just outlived must not be reused: it gets the maximum.
    record.timeoutSeconds = this.policy.maxTimeoutSeconds;
    this.#armTimeout(live);
    this.#save(record);
    return null;
  }

  /** Ends a task early: `reason` is recorded (stopped by the operator, cancelled turn, refused adoption). */
  async stop(sessionId: string, id: string, reason: EndReason = 'stopped', detail?: string): Promise<{ record: TaskRecord; wasSettled: boolean }> {
    const record = this.#require(sessionId, id);
    const live = this.#live.get(id);
    if (!live) {
      // A leftover of an earlier run is reached by id too; anything else settled stays as it is.
      if (this.#isOrphaned(record) && this.#leftovers.probe(record).alive) {
        await this.#reapOne(record);
        return { record, wasSettled: false };
      }
      return { record, wasSettled: true };
    }
    live.endReason ??= reason;
    live.endDetail ??= detail ?? null;
    const queued = this.#queue.indexOf(live);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      await this.#settle(live, { exitCode: null, signal: null });
    } else if (live.handle) {
      try {
        live.outside.push(...(await live.handle.stop(this.policy.stopGraceMs)).outside);
      } catch (error) {
        throw this.#notEnded(live, error);
      }
    }
    const settled = await live.settled;
    this.#noteOutside(live);
    return { record: settled, wasSettled: false };
  }

  /** Processes that outlived SIGKILL: the row says so and the caller gets the error; the task stays watched. */
  #notEnded(live: Live, error: unknown): Error {
    if (!(error instanceof StuckError)) return error as Error;
    live.record.error = `It did not end: ${error.message}. Drover keeps watching it and records its end when it comes.`;
    this.#save(live.record);
    return new DroverError('conflict', `Task ${live.record.id} did not end: ${error.message}`);
  }

  /** After a stop: processes that had left the task's container but carried its mark were ended too, and are named. */
  #noteOutside(live: Live): void {
    if (live.outside.length === 0 || this.#closed) return;
    const pids = [...new Set(live.outside)];
    const note = `also ended ${plural(pids.length, 'process', 'processes')} that had left its ${live.record.containment === 'cgroup' ? 'cgroup' : 'group'}: ${pids.join(', ')}`;
    live.record.exitNote = live.record.exitNote ? `${live.record.exitNote}; ${note}` : note;
    live.outside = [];
    this.#save(live.record);
  }

  /** Ends every leftover of a session that is provably still running from an earlier run. */
  async reap(sessionId: string): Promise<ReapReport> {
    const report: ReapReport = { reaped: [], untouched: [] };
    for (const record of this.#records(sessionId).values()) {
      if (!this.#isOrphaned(record)) continue;
      const result = await this.#reapOne(record);
      if (result.refused === null) report.reaped.push({ taskId: record.id, pids: result.ended });
      else report.untouched.push({ taskId: record.id, reason: result.refused });
    }
    return report;
  }

  async #reapOne(record: TaskRecord): Promise<{ ended: number[]; refused: string | null }> {
    const result = await this.#leftovers.reap(record);
    if (result.refused !== null) return result;
    // Now this run has dealt with it: the record stops claiming to run.
    record.status = 'stopped';
    record.endedAt = this.#now();
    record.exitNote = `ended as a leftover of an earlier run (${plural(result.ended.length, 'process', 'processes')}: ${result.ended.join(', ')})`;
    this.#save(record);
    return result;
  }

  #isOrphaned(record: TaskRecord): boolean {
    return !this.#live.has(record.id) && (record.status === 'running' || record.status === 'queued') && record.runId !== this.#runId;
  }

  /** Every task of a session, oldest first, as clients see them. */
  list(sessionId: string): TaskRow[] {
    const now = this.#now();
    return [...this.#records(sessionId).values()].map((record) => this.#row(record, now));
  }

  row(sessionId: string, id: string): TaskRow {
    return this.#row(this.#require(sessionId, id), this.#now());
  }

  /** The record, for callers that need the private fields (the model's tools, reaping). */
  record(sessionId: string, id: string): TaskRecord {
    return this.#require(sessionId, id);
  }

  has(sessionId: string, id: string): boolean {
    return this.#records(sessionId).has(id);
  }

  /** The output as a person would read it; from memory while running, else from the log's tail. */
  async output(sessionId: string, id: string, tailLines?: number): Promise<TaskOutput> {
    const record = this.#require(sessionId, id);
    const live = this.#live.get(id);
    const source = live
      ? { bytes: live.window.bytes(), totalBytes: live.window.totalBytes, truncated: live.window.truncated }
      : await readLogTail(record.logPath, this.policy.persistedReadBytes);
    return readableOutput(source, tailLines);
  }

  /** Answers a task that waits for terminal input. */
  write(sessionId: string, id: string, data: string): void {
    this.#require(sessionId, id);
    const live = this.#live.get(id);
    if (!live?.handle) throw new DroverError('conflict', `Task ${id} is not running`);
    live.handle.write(data);
  }

  /** Drops settled tasks (and their logs) of a session; running and queued ones stay. */
  async clearFinished(sessionId: string): Promise<string[]> {
    const records = this.#records(sessionId);
    const now = this.#now();
    const removed = [...records.values()].filter((record) => {
      const status = this.#row(record, now).status;
      return status !== 'running' && status !== 'queued' && status !== 'orphaned';
    });
    this.#repo.deleteMany(removed.map((record) => record.id));
    for (const record of removed) {
      records.delete(record.id);
      this.#settledRows.delete(record.id);
      await rm(join(record.logPath, '..'), { recursive: true, force: true });
    }
    return removed.map((record) => record.id);
  }

  /**
   * Before a session is deleted: stops every unsettled task of it and ends its provable leftovers,
   * so nothing of it is left running without a record. Throws (and deletes nothing) when a task
   * would not end.
   */
  async stopSession(sessionId: string): Promise<void> {
    const lives = [...this.#live.values()].filter((live) => live.record.sessionId === sessionId);
    const results = await Promise.allSettled(lives.map((live) => this.stop(sessionId, live.record.id, 'shutdown', 'its session was deleted')));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    await this.reap(sessionId);
    this.#sessions.delete(sessionId);
    for (const id of [...this.#settledRows.keys()]) if (this.#settledRows.get(id)!.sessionId === sessionId) this.#settledRows.delete(id);
  }

  /**
   * Shutdown: take nothing new, stop everything, wait for every log to be flushed. A task whose
   * processes would not end is logged and stays recorded as running, so the next start finds it
   * as a leftover; drain never waits on it forever.
   */
  async drain(log: (message: string) => void = () => {}): Promise<void> {
    this.#draining = true;
    const lives = [...this.#live.values()];
    const results = await Promise.allSettled(lives.map((live) => this.stop(live.record.sessionId, live.record.id, 'shutdown', 'Drover was shutting down')));
    for (const result of results) if (result.status === 'rejected') log(`at shutdown: ${(result.reason as Error).message}`);
    this.#closed = true;
  }

  #create(request: StartRequest, foreground: boolean): Live {
    const kind = request.kind ?? 'command';
    if (!this.#runners[kind]) throw new DroverError('unavailable', `No runner for ${kind} tasks`);
    const record = this.#repo.create((seq) => ({
      id: taskId(kind, seq),
      seq,
      sessionId: request.sessionId,
      kind,
      command: request.command,
      cwd: request.cwd,
      status: 'queued',
      exitCode: null,
      signal: null,
      exitNote: null,
      error: null,
      pid: null,
      pgid: null,
      processStart: null,
      bootId: null,
      mark: null,
      containment: null,
      containmentNote: null,
      cgroup: null,
      members: [],
      runId: this.#runId,
      queuedAt: this.#now(),
      startedAt: null,
      endedAt: null,
      expectedSeconds: request.expectedSeconds ?? null,
      timeoutSeconds: resolveTimeoutSeconds(request, this.policy),
      notify: !foreground && (request.notifyOnFinish ?? false),
      adopted: false,
      foreground,
      logPath: join(this.#dataDir, 'sessions', request.sessionId, 'background', taskId(kind, seq), 'output.log'),
    }));
    const id = record.id;
    this.#records(request.sessionId).set(id, record);
    let resolveSettled!: (record: TaskRecord) => void;
    const settled = new Promise<TaskRecord>((resolve) => (resolveSettled = resolve));
    const live: Live = {
      record,
      window: new OutputWindow(this.policy.outputWindowBytes),
      log: null,
      handle: null,
      lastOutputAt: null,
      timer: null,
      endReason: null,
      endDetail: null,
      settled,
      resolveSettled,
      outputTimer: null,
      launching: false,
      leaderExited: false,
      outside: [],
      settling: false,
    };
    this.#live.set(id, live);
    this.#emit(record);
    return live;
  }

  /** Starts queued tasks in start order, each as soon as its session (and Drover as a whole) has room. */
  async #pump(): Promise<void> {
    const starts: Promise<void>[] = [];
    for (let i = 0; i < this.#queue.length && this.runningCount() < this.policy.maxConcurrentTotal; ) {
      const live = this.#queue[i]!;
      if (this.#capacityProblem(live.record.sessionId) !== null) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      live.launching = true;
      starts.push(this.#launch(live).finally(() => (live.launching = false)));
    }
    await Promise.all(starts);
  }

  async #launch(live: Live): Promise<void> {
    const record = live.record;
    const runner = this.#runners[record.kind]!;
    live.log = new TaskLog(record.logPath);
    const mark = markFor(this.#instanceId, record.id);
    record.mark = formatMark(mark);
    try {
      live.handle = await runner.start(
        { kind: record.kind, taskId: record.id, command: record.command, cwd: record.cwd, env: {}, mark },
        {
          output: (chunk) => this.#onOutput(live, chunk),
          leaderExited: () => {
            live.leaderExited = true;
            this.#emit(record);
          },
          members: (members) => {
            record.members = [...members];
            this.#save(record);
          },
        },
      );
    } catch (error) {
      record.error = error instanceof StartError ? error.message : `could not start: ${(error as Error).message}`;
      record.startedAt = this.#now();
      await this.#settle(live, { exitCode: null, signal: null }, 'failed');
      return;
    }
    record.status = 'running';
    record.startedAt = this.#now();
    record.pid = live.handle.pid || null;
    record.pgid = live.handle.pid || null;
    record.processStart = live.handle.processStartedAt;
    record.bootId = live.handle.pid ? this.#bootId : null;
    record.containment = live.handle.containment;
    record.containmentNote = live.handle.containmentNote;
    record.cgroup = live.handle.cgroup;
    this.#armTimeout(live);
    this.#save(record);
    void live.handle.wait().then((exit) => this.#settle(live, exit));
  }

  #armTimeout(live: Live): void {
    if (live.timer) clearTimeout(live.timer);
    const started = live.record.startedAt ?? this.#now();
    const remaining = Math.max(0, started + live.record.timeoutSeconds * 1000 - this.#now());
    live.timer = setTimeout(() => {
      live.endReason ??= 'timed_out';
      live.handle
        ?.stop(this.policy.stopGraceMs)
        .then((report) => {
          live.outside.push(...report.outside);
          return live.settled.then(() => this.#noteOutside(live));
        })
        .catch((error: unknown) => this.#notEnded(live, error));
    }, remaining);
    live.timer.unref?.();
  }

  #onOutput(live: Live, chunk: Buffer): void {
    live.window.append(chunk);
    live.lastOutputAt = this.#now();
    if (live.log && !live.log.write(chunk) && live.handle) {
      // The disk is behind: stop reading the terminal until it catches up, so memory stays bounded.
      const handle = live.handle;
      handle.pause();
      live.log.onDrain(() => handle.resume());
    }
    if (!live.outputTimer) {
      live.outputTimer = setTimeout(() => {
        live.outputTimer = null;
        this.#listener.taskOutput(live.record.sessionId, live.record.id, live.window.totalBytes);
      }, OUTPUT_EVENT_INTERVAL_MS);
    }
  }

  async #settle(live: Live, exit: RunnerExit, forced?: 'failed'): Promise<void> {
    if (live.settling || this.#closed) return;
    live.settling = true;
    if (live.timer) clearTimeout(live.timer);
    if (live.outputTimer) clearTimeout(live.outputTimer);
    // It stays live (waitFor waits on it) until its log is flushed and its record final.
    await live.log?.close();
    this.#live.delete(live.record.id);
    const record = live.record;
    const report = describeExit(record.command, exit.exitCode, exit.signal);
    record.exitCode = report.exitCode;
    record.signal = report.signal;
    record.exitNote = report.note;
    record.endedAt = this.#now();
    if (forced) record.status = forced;
    else if (live.endReason === 'timed_out') {
      record.status = 'timed_out';
      record.exitNote = `timed out after ${record.timeoutSeconds} s${report.signal ? ` (${report.signal})` : ''}`;
    } else if (live.endReason) {
      record.status = 'stopped';
      record.exitNote = `${endReasonText(live.endReason, live.endDetail)}${report.signal ? ` (${report.signal})` : ''}`;
    } else record.status = report.exitCode === 0 && !report.signal ? 'succeeded' : 'failed';
    if (live.log?.error && !record.error) record.error = `the output log could not be written: ${live.log.error.message}`;
    if (record.startedAt !== null && record.pid !== null && cwdVanished(record.cwd)) {
      const note = `its working directory ${record.cwd} was removed while it ran`;
      record.exitNote = record.exitNote ? `${record.exitNote}; ${note}` : note;
    }
    this.#save(record);
    this.#listener.taskOutput(record.sessionId, record.id, live.window.totalBytes);
    live.resolveSettled(record);
    if (!this.#draining) await this.#pump();
  }

  #save(record: TaskRecord): void {
    if (this.#closed) return;
    this.#settledRows.delete(record.id);
    this.#repo.update(record);
    this.#emit(record);
  }

  #emit(record: TaskRecord): void {
    this.#listener.taskChanged(this.#row(record, this.#now()));
  }

  #row(record: TaskRecord, now: number): TaskRow {
    const cached = this.#settledRows.get(record.id);
    if (cached) return cached;
    const live = this.#live.get(record.id);
    const verdict = this.#isOrphaned(record) ? this.#leftovers.probe(record) : null;
    const row = toTaskRow(record, {
      now,
      runId: this.#runId,
      lastOutputAt: live?.lastOutputAt ?? null,
      silentAfterMs: this.policy.silentAfterMs,
      leftover: verdict?.alive ?? false,
      orphanNote: verdict ? (verdict.alive ? 'still running from an earlier run' : `left by an earlier run: ${verdict.reason}`) : null,
      leaderExited: live?.leaderExited ?? false,
    });
    // An orphaned row's elapsed time keeps growing, so only truly settled rows are kept.
    if (!live && row.status !== 'orphaned' && isSettled(row.status)) this.#settledRows.set(record.id, row);
    return row;
  }

  #records(sessionId: string): Map<string, TaskRecord> {
    let records = this.#sessions.get(sessionId);
    if (!records) {
      records = new Map();
      for (const record of this.#repo.listBySession(sessionId, (error) => console.error(`[drover] ${error.message}`))) {
        records.set(record.id, record);
      }
      this.#sessions.set(sessionId, records);
    }
    return records;
  }

  #find(id: string): TaskRecord | undefined {
    const live = this.#live.get(id);
    if (live) return live.record;
    for (const records of this.#sessions.values()) {
      const record = records.get(id);
      if (record) return record;
    }
    return undefined;
  }

  #require(sessionId: string, id: string): TaskRecord {
    const record = this.#records(sessionId).get(id);
    if (!record) throw new DroverError('not_found', `No task with id "${id}" in this session`, { path: 'taskId' });
    return record;
  }
}

