import { DroverError } from '../../shared/ipc/errors.js';
import { isSettled, type TaskOutput, type TaskRow } from '../../shared/schemas/task.js';
import type { TasksRepo } from '../store/tasks-repo.js';
import { DEFAULT_POLICY, resolveTimeoutSeconds, type PoolPolicy } from './policy.js';
import { LeftoverTracker } from './leftover-tracker.js';
import { StartError, StuckError, type RunnerExit } from './runner.js';
import { Scheduler } from './scheduler.js';
import { cwdVanished } from './command-runner.js';
import { formatMark, markFor } from '../process/identity.js';
import { TaskLog, readLogTail } from './task-log.js';
import { recordForRequest, type TaskRecord } from './task-record.js';
import { appendOutput, newLive, within, type Live } from './live-task.js';
import { TaskIndex } from './task-index.js';
import { noteOutside, recordAdopted, recordEnd, recordStart, stuckText } from './record-changes.js';
import { EarlierRuns } from './earlier-runs.js';
import { DataFolderWatch } from './data-folder.js';
import { RecordKeeper } from './record-keeper.js';
import { logRoomHooks, noteLogAtEnd, resumeLogs } from './log-room.js';
import { toTaskRow } from './task-row.js';
import { readableOutput } from './readable-output.js';
import { TaskSignals } from './task-signals.js';
import {
  type EndReason,
  type PoolListener,
  type PoolOptions,
  type ReapReport,
  type StartRequest,
} from './pool-types.js';

export type { PoolListener, PoolOptions, ReapReport, StartRequest } from './pool-types.js';

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
  readonly #log: (message: string) => void;
  readonly #now: () => number;
  /** The boot this run belongs to; recorded with every process so a later run can rule out a reboot. */
  readonly #bootId: string | null;
  readonly #earlier: EarlierRuns;
  readonly #index: TaskIndex;
  readonly #live = new Map<string, Live>();
  readonly #scheduler: Scheduler;
  readonly #disk: PoolOptions['disk'];
  readonly #keeper: RecordKeeper;
  readonly #dataFolder: DataFolderWatch;
  readonly #signals: TaskSignals;
  #draining = false;
  /** After drain: nothing is written any more (the store may be closed); what would not end stays recorded as running. */
  #closed = false;

  constructor(options: PoolOptions) {
    this.policy = { ...DEFAULT_POLICY, ...options.policy };
    this.#repo = options.repo;
    this.#index = new TaskIndex(options.repo);
    this.#scheduler = new Scheduler(this.#live, this.policy);
    this.#runners = options.runners;
    this.#dataDir = options.dataDir;
    this.#runId = options.runId;
    this.#instanceId = options.instanceId;
    this.#listener = options.listener;
    this.#log = options.log ?? ((message) => console.error(`drover: ${message}`));
    this.#now = options.now ?? Date.now;
    const leftovers = new LeftoverTracker(options.inspector, this.#now);
    this.#earlier = new EarlierRuns({
      leftovers,
      runId: options.runId,
      isLive: (id) => this.#live.has(id),
      save: (record) => this.#save(record),
      now: this.#now,
    });
    this.#bootId = options.inspector.identify(process.pid).bootId;
    this.#disk = options.disk;
    this.#dataFolder = new DataFolderWatch(options.dataDir);
    this.#keeper = new RecordKeeper({
      repo: options.repo,
      runId: options.runId,
      leftovers,
      disk: options.disk,
      log: this.#log,
      now: this.#now,
      running: () =>
        [...this.#live.values()]
          .filter((live) => live.record.status === 'running' && !live.settling)
          .map((live) => live.record),
      ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    });
    // Room is back: unsaved rows are written, and every waiting log is written again from here.
    options.disk?.onResume(() => {
      if (this.#closed) return;
      this.#keeper.writeUnsaved();
      resumeLogs(this.#live.values(), this.#dataDir, (record) => this.#save(record));
    });
    this.#signals = new TaskSignals({
      ports: options.ports ?? null,
      onReady: (record) => {
        record.readyAt = this.#now();
        this.#save(record);
      },
    });
    this.#index.prime(this.#keeper.settleLostOrphans());
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** The settings changed: every later read (starts, stops, caps, waits) sees the new figures, and a raised cap starts queued tasks now. */
  applyPolicy(policy: Partial<PoolPolicy>): void {
    Object.assign(this.policy, policy);
    if (!this.#draining) void this.#pump();
  }

  /** Background tasks of this run now running (the caps count these), in one session or in all. */
  runningCount(sessionId?: string): number {
    return this.#scheduler.runningCount(sessionId);
  }

  /** Starts a background task, or queues it behind the cap. A task that cannot start settles as failed with the reason. */
  async start(request: StartRequest): Promise<TaskRecord> {
    if (!this.policy.enabled) throw new DroverError('unavailable', 'Background tasks are turned off in the settings');
    if (this.#draining) throw new DroverError('unavailable', 'Drover is shutting down and takes no new tasks');
    const live = this.#create(request, false);
    this.#scheduler.enqueue(live);
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
    if (!live) return this.#index.find(id) ?? null;
    return within(live.settled, ms, signal);
  }

  /**
   * Hands a foreground run that outlived its wait to the background. Returns the reason it
   * could not be taken over, or null when it was.
   */
  adopt(id: string): string | null {
    const live = this.#live.get(id);
    // A settling run has exited: nothing is left to hand over, and a timeout armed now would outlive it.
    if (!live || live.settling || !live.record.foreground || live.record.adopted) return null;
    if (!this.policy.enabled) return 'background tasks are turned off in the settings';
    if (this.#draining) return 'Drover is shutting down';
    const full = this.#scheduler.capacityProblem(live.record.sessionId);
    if (full) return full;
    recordAdopted(live.record, this.policy.maxTimeoutSeconds);
    this.#armTimeout(live);
    this.#save(live.record);
    return null;
  }

  /** Ends a task early: `reason` is recorded (stopped by the operator, cancelled turn, refused adoption). */
  async stop(
    sessionId: string,
    id: string,
    reason: EndReason = 'stopped',
    detail?: string,
  ): Promise<{ record: TaskRecord; wasSettled: boolean }> {
    const record = this.#index.require(sessionId, id);
    const live = this.#live.get(id);
    if (!live) {
      // A leftover of an earlier run is reached by id too; anything else settled stays as it is.
      return { record, wasSettled: !(await this.#earlier.stopLeftover(record)) };
    }
    live.endReason ??= reason;
    live.endDetail ??= detail ?? null;
    if (this.#scheduler.withdraw(live)) {
      await this.#settle(live, { exitCode: null, signal: null });
    } else {
      // A start in flight is let finish: what it started is then stopped, not left running unseen.
      await live.launched;
      if (live.handle && !live.settling) {
        try {
          live.outside.push(...(await live.handle.stop(this.policy.stopGraceMs)).outside);
        } catch (error) {
          throw this.#notEnded(live, error);
        }
      }
    }
    const settled = await live.settled;
    this.#noteOutside(live);
    return { record: settled, wasSettled: false };
  }

  /** A stop that failed (processes outlived SIGKILL, mostly): the row says so and the caller gets the error; the task stays watched. */
  #notEnded(live: Live, error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    live.record.error = error instanceof StuckError ? stuckText(error) : `It could not be stopped: ${message}`;
    this.#save(live.record);
    return new DroverError('conflict', `Task ${live.record.id} did not end: ${message}`);
  }

  /** After a stop: processes that had left the task's container but carried its mark were ended too, and are named. */
  #noteOutside(live: Live): void {
    if (live.outside.length === 0 || this.#closed) return;
    noteOutside(live.record, [...new Set(live.outside)]);
    live.outside = [];
    this.#save(live.record);
  }

  /** Ends every leftover of a session that is provably still running from an earlier run. */
  reap(sessionId: string): Promise<ReapReport> {
    return this.#earlier.reap(this.#index.records(sessionId).values());
  }

  /** Every task of a session, oldest first, as clients see them. */
  list(sessionId: string): TaskRow[] {
    const now = this.#now();
    return [...this.#index.records(sessionId).values()].map((record) => this.#row(record, now));
  }

  row(sessionId: string, id: string): TaskRow {
    return this.#row(this.#index.require(sessionId, id), this.#now());
  }

  has(sessionId: string, id: string): boolean {
    return this.#index.records(sessionId).has(id);
  }

  /** The output as a person would read it; from memory while running, else from the log's tail. */
  async output(sessionId: string, id: string, tailLines?: number): Promise<TaskOutput> {
    const record = this.#index.require(sessionId, id);
    const live = this.#live.get(id);
    const source = live
      ? { bytes: live.window.bytes(), totalBytes: live.window.totalBytes, truncated: live.window.truncated }
      : await readLogTail(record.logPath, this.policy.persistedReadBytes);
    return readableOutput(source, tailLines);
  }

  /** Answers a task that waits for terminal input. */
  write(sessionId: string, id: string, data: string): void {
    this.#index.require(sessionId, id);
    const live = this.#live.get(id);
    if (!live?.handle) throw new DroverError('conflict', `Task ${id} is not running`);
    live.handle.write(data);
  }

  /** Moves where the next delta read of a task's log starts (monitor_events); it is stored, so it survives a restart. */
  setEventOffset(sessionId: string, id: string, offset: number): void {
    const record = this.#index.require(sessionId, id);
    if (record.eventOffset === offset) return;
    record.eventOffset = offset;
    this.#save(record);
  }

  /** A monitor's scheduled ping woke the agent: it is not sent again. False when it no longer runs or was already sent. */
  notePinged(sessionId: string, id: string): boolean {
    const live = this.#live.get(id);
    if (!live || live.record.sessionId !== sessionId || live.settling || live.record.pingedAt !== null) return false;
    live.record.pingedAt = this.#now();
    this.#save(live.record);
    return true;
  }

  /** The port index saw these tasks' ports change: their rows are told again. */
  portsChanged(ids: readonly string[]): void {
    for (const id of ids) {
      const live = this.#live.get(id);
      if (live && !live.settling) this.#emit(live.record);
    }
  }

  /** Every TCP port a running task of this run listens on, with the task's session and command. */
  listeningPorts(): { port: number; pid: number; taskId: string; sessionId: string; command: string }[] {
    return this.#signals.listening().flatMap((entry) => {
      const live = this.#live.get(entry.taskId);
      return live ? [{ ...entry, sessionId: live.record.sessionId, command: live.record.command }] : [];
    });
  }

  /** What a running task still waits for to count as ready, in words ('' when nothing). */
  readyWaitingFor(id: string): string {
    return this.#signals.waitingFor(id);
  }

  /** Drops settled tasks (and their logs) of a session, only those in `only` when given; running and queued ones stay. */
  clearFinished(sessionId: string, only?: readonly string[]): Promise<string[]> {
    const now = this.#now();
    const chosen = only ? new Set(only) : null;
    return this.#index.remove(
      sessionId,
      (record) =>
        (!chosen || chosen.has(record.id)) &&
        !['running', 'queued', 'orphaned'].includes(this.#row(record, now).status),
    );
  }

  /**
   * Before a session is deleted: stops every unsettled task of it and ends its provable leftovers,
   * so nothing of it is left running without a record. Throws (and deletes nothing) when a task
   * would not end.
   */
  async stopSession(sessionId: string): Promise<void> {
    const [failed] = await this.#stopAll(
      [...this.#live.values()].filter((live) => live.record.sessionId === sessionId),
      'its session was deleted',
    );
    if (failed) throw failed;
    await this.reap(sessionId);
    this.#index.forget(sessionId);
  }

  /**
   * Shutdown: take nothing new, stop everything, wait for every log to be flushed. A task whose
   * processes would not end is logged and stays recorded as running, so the next start finds it
   * as a leftover; drain never waits on it forever.
   */
  async drain(log: (message: string) => void = () => {}): Promise<void> {
    this.#draining = true;
    this.#keeper.stop();
    this.#signals.dispose();
    for (const failure of await this.#stopAll([...this.#live.values()], 'Drover was shutting down'))
      log(`at shutdown: ${failure.message}`);
    this.#closed = true;
  }

  /** Stops each task, all at once; returns the failures (tasks that would not end). */
  async #stopAll(lives: Live[], detail: string): Promise<Error[]> {
    const results = await Promise.allSettled(
      lives.map((live) => this.stop(live.record.sessionId, live.record.id, 'shutdown', detail)),
    );
    return results.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
  }

  #create(request: StartRequest, foreground: boolean): Live {
    const kind = request.kind ?? 'command';
    if (!this.#runners[kind]) throw new DroverError('unavailable', `No runner for ${kind} tasks`);
    this.#dataFolder.check();
    const place = {
      runId: this.#runId,
      dataDir: this.#dataDir,
      queuedAt: this.#now(),
      // A monitor watches for as long as it may: without a limit of its own it gets the longest.
      timeoutSeconds: resolveTimeoutSeconds(
        kind === 'monitor' ? { timeoutSeconds: request.timeoutSeconds ?? this.policy.maxTimeoutSeconds } : request,
        this.policy,
      ),
    };
    const record = this.#repo.create((seq) => recordForRequest(seq, { ...request, kind }, foreground, place));
    const id = record.id;
    this.#index.records(request.sessionId).set(id, record);
    const live = newLive(record, this.policy.outputWindowBytes);
    this.#live.set(id, live);
    this.#emit(record);
    return live;
  }

  /** Starts queued tasks in start order, each as soon as its session (and Drover as a whole) has room. */
  async #pump(): Promise<void> {
    await Promise.all(
      this.#scheduler.takeStartable().map((live) => this.#launch(live).finally(() => (live.launching = false))),
    );
  }

  #launch(live: Live): Promise<void> {
    live.launched ??= this.#startRunner(live);
    return live.launched;
  }

  async #startRunner(live: Live): Promise<void> {
    const record = live.record;
    const runner = this.#runners[record.kind]!;
    const mark = markFor(this.#instanceId, record.id);
    record.mark = formatMark(mark);
    try {
      // Its folder is made here: on a full disk that fails, and the task fails with the reason.
      live.log = new TaskLog(
        record.logPath,
        logRoomHooks(live, this.#disk, this.#dataDir, (changed) => this.#save(changed)),
      );
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
      this.#disk?.noteFailure(error);
      record.error = error instanceof StartError ? error.message : `could not start: ${(error as Error).message}`;
      record.startedAt = this.#now();
      await this.#settle(live, { exitCode: null, signal: null }, 'failed');
      return;
    }
    recordStart(record, live.handle, this.#now(), this.#bootId);
    this.#signals.started(record);
    this.#armTimeout(live);
    this.#save(record);
    live.handle
      .wait()
      .then((exit) => this.#settle(live, exit))
      .catch((error: unknown) =>
        this.#log(`task ${record.id} could not be recorded as ended: ${(error as Error).message}`),
      );
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
        .catch((error: unknown) => void this.#notEnded(live, error));
    }, remaining);
    live.timer.unref?.();
  }

  #onOutput(live: Live, chunk: Buffer): void {
    this.#signals.output(live.record, chunk);
    appendOutput(live, chunk, this.#now(), () =>
      this.#listener.taskOutput(live.record.sessionId, live.record.id, live.window.totalBytes),
    );
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
    this.#signals.ended(record);
    if (live.log) noteLogAtEnd(record, this.#dataDir, live.log);
    recordEnd(record, {
      exit,
      forced,
      reason: live.endReason,
      detail: live.endDetail,
      logError: live.log?.error ?? null,
      cwdGone: cwdVanished(record.cwd),
      now: this.#now(),
    });
    this.#save(record);
    this.#listener.taskOutput(record.sessionId, record.id, live.window.totalBytes);
    live.resolveSettled(record);
    if (!this.#draining) await this.#pump();
  }

  /**
   * Writes a changed record and tells clients. A row that cannot be written (a full disk, mostly)
   * is kept in memory, shown as it is, and written again when room returns: the task's life goes
   * on either way, and nothing a client was shown is lost.
   */
  #save(record: TaskRecord): void {
    if (this.#closed) return;
    this.#index.changed(record.id);
    this.#keeper.write(record);
    this.#emit(record);
  }

  #emit(record: TaskRecord): void {
    this.#listener.taskChanged(this.#row(record, this.#now()));
  }

  #row(record: TaskRecord, now: number): TaskRow {
    const cached = this.#index.settledRow(record.id);
    if (cached) return cached;
    const live = this.#live.get(record.id);
    const orphan = this.#earlier.describe(record);
    const row = toTaskRow(record, {
      now,
      runId: this.#runId,
      lastOutputAt: live?.lastOutputAt ?? null,
      silentAfterMs: this.policy.silentAfterMs,
      leftover: orphan?.leftover ?? false,
      orphanNote: orphan?.orphanNote ?? null,
      leaderExited: live?.leaderExited ?? false,
      ports: live ? this.#signals.portsOf(record.id) : [],
    });
    // An orphaned row's elapsed time keeps growing, so only truly settled rows are kept.
    if (!live && row.status !== 'orphaned' && isSettled(row.status)) this.#index.keepSettledRow(row);
    return row;
  }
}
