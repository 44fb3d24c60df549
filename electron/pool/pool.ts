import { DroverError } from '../../shared/ipc/errors.js';
import { SANDBOX_REFUSALS_MAX, type SandboxRefusal } from '../../shared/schemas/sandbox.js';
import type { TaskKind, TaskOutput, TaskRow } from '../../shared/schemas/task.js';
import type { FinishedCursor, FinishedFilter, FinishedPage, OpenTasks } from '../../shared/schemas/task-page.js';
import type { TasksRepo } from '../store/tasks-repo.js';
import { DEFAULT_POLICY, resolveTimeoutSeconds, type PoolPolicy } from './policy.js';
import { LeftoverTracker } from './leftover-tracker.js';
import { Scheduler } from './scheduler.js';
import { recordForRequest, type TaskRecord } from './task-record.js';
import { newLive, OutputTicks, within, type Live } from './live-task.js';
import { TaskIndex } from './task-index.js';
import { recordAdopted } from './record-changes.js';
import { EarlierRuns } from './earlier-runs.js';
import { DataFolderWatch } from './data-folder.js';
import { RecordKeeper } from './record-keeper.js';
import { resumeLogs } from './log-room.js';
import { TaskSignals } from './task-signals.js';
import { TaskEndings } from './task-endings.js';
import { TaskLauncher } from './task-launcher.js';
import { TaskViews } from './task-views.js';
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
  readonly #dataDir: string;
  readonly #runId: string;
  readonly #listener: PoolListener;
  readonly #now: () => number;
  readonly #earlier: EarlierRuns;
  readonly #index: TaskIndex;
  readonly #live = new Map<string, Live>();
  readonly #scheduler: Scheduler;
  readonly #keeper: RecordKeeper;
  readonly #dataFolder: DataFolderWatch;
  readonly #signals: TaskSignals;
  readonly #endings: TaskEndings;
  readonly #launcher: TaskLauncher;
  readonly #views: TaskViews;
  #draining = false;
  /** After drain: nothing is written any more (the store may be closed); what would not end stays recorded as running. */
  #closed = false;

  constructor(options: PoolOptions) {
    this.policy = { ...DEFAULT_POLICY, ...options.policy };
    this.#repo = options.repo;
    this.#index = new TaskIndex(options.repo);
    this.#scheduler = new Scheduler(this.#live, this.policy);
    this.#dataDir = options.dataDir;
    this.#runId = options.runId;
    this.#listener = options.listener;
    const log = options.log ?? ((message) => console.error(`drover: ${message}`));
    this.#now = options.now ?? Date.now;
    const leftovers = new LeftoverTracker(options.inspector, this.#now);
    this.#earlier = new EarlierRuns({
      leftovers,
      runId: options.runId,
      isLive: (id) => this.#live.has(id),
      save: (record) => this.#save(record),
      now: this.#now,
    });
    this.#dataFolder = new DataFolderWatch(options.dataDir);
    this.#keeper = new RecordKeeper({
      repo: options.repo,
      runId: options.runId,
      leftovers,
      disk: options.disk,
      log,
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
    // One tick tells clients of every task's new output; an ending task's own report replaces it.
    const ticks = new OutputTicks((live) => {
      if (!live.settling) options.listener.taskOutput(live.record.sessionId, live.record.id, live.window.totalBytes);
    });
    this.#endings = new TaskEndings({
      index: this.#index,
      lives: this.#live,
      scheduler: this.#scheduler,
      earlier: this.#earlier,
      policy: this.policy,
      signals: this.#signals,
      dataDir: options.dataDir,
      listener: options.listener,
      ticks,
      save: (record) => this.#save(record),
      closed: () => this.#closed,
      ended: async () => {
        if (!this.#draining) await this.#pump();
      },
      now: this.#now,
    });
    this.#launcher = new TaskLauncher({
      runners: options.runners,
      instanceId: options.instanceId,
      dataDir: options.dataDir,
      disk: options.disk,
      bootId: options.inspector.identify(process.pid).bootId,
      signals: this.#signals,
      endings: this.#endings,
      ticks,
      save: (record) => this.#save(record),
      emit: (record) => this.#emit(record),
      now: this.#now,
      log,
    });
    this.#views = new TaskViews({
      index: this.#index,
      lives: this.#live,
      earlier: this.#earlier,
      signals: this.#signals,
      runId: options.runId,
      policy: this.policy,
      runners: options.runners,
      now: this.#now,
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

  /** Why one more background task of this kind cannot run now in the session, or null when it can. */
  capacityProblem(sessionId: string, kind: TaskKind): string | null {
    return this.#scheduler.capacityProblem(sessionId, kind);
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
    await this.#launcher.launch(live);
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
    this.#endings.armTimeout(live);
    this.#save(live.record);
    return null;
  }

  /** Ends a task early: `reason` is recorded (stopped by the operator, cancelled turn, refused adoption). */
  stop(
    sessionId: string,
    id: string,
    reason: EndReason = 'stopped',
    detail?: string,
  ): Promise<{ record: TaskRecord; wasSettled: boolean }> {
    return this.#endings.stop(sessionId, id, reason, detail);
  }

  /** Ends every leftover of a session that is provably still running from an earlier run. */
  reap(sessionId: string): Promise<ReapReport> {
    return this.#earlier.reap(this.#index.records(sessionId).values());
  }

  /** Every task of a session, oldest first, as clients see them. */
  list(sessionId: string): TaskRow[] {
    return this.#views.list(sessionId);
  }

  /** What the tasks panel opens with: live tasks whole, the Finished counts and its first page. */
  openTasks(sessionId: string, filter: FinishedFilter, limit: number): OpenTasks {
    return this.#views.open(sessionId, filter, limit);
  }

  /** The Finished rows under `filter` after `after`, a page of `limit`. */
  finishedPage(sessionId: string, filter: FinishedFilter, after: FinishedCursor | null, limit: number): FinishedPage {
    return this.#views.finishedPage(sessionId, filter, after, limit);
  }

  row(sessionId: string, id: string): TaskRow {
    return this.#views.row(this.#index.require(sessionId, id));
  }

  /** The unsettled tasks of this run in every session (running, starting or queued), from memory: no store read. */
  liveRows(): TaskRow[] {
    const now = this.#now();
    return [...this.#live.values()].filter((live) => !live.settling).map((live) => this.#views.row(live.record, now));
  }

  has(sessionId: string, id: string): boolean {
    return this.#index.records(sessionId).has(id);
  }

  /** The output as a person would read it; from memory while running, else from the log's tail. */
  output(sessionId: string, id: string, tailLines?: number): Promise<TaskOutput> {
    return this.#views.output(sessionId, id, tailLines);
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

  /** An agent task's run used more of its limits: its row says so. */
  noteAgentUse(id: string, steps: number, tokens: number): void {
    const live = this.#live.get(id);
    if (!live?.record.agentInfo || live.settling) return;
    live.record.agentInfo = { ...live.record.agentInfo, steps, tokens };
    this.#save(live.record);
  }

  /**
   * The sandbox refused a task of this session something (a path, a host): its row says so, the
   * first SANDBOX_REFUSALS_MAX distinct ones. False when the session has no such sandboxed task.
   */
  noteSandboxRefusal(sessionId: string, id: string, refusal: SandboxRefusal): boolean {
    if (!this.has(sessionId, id)) return false;
    const record = this.#index.require(sessionId, id);
    if (!record.sandboxed) return false;
    const known = record.sandboxRefusals.some((r) => r.kind === refusal.kind && r.target === refusal.target);
    if (known || record.sandboxRefusals.length >= SANDBOX_REFUSALS_MAX) return true;
    record.sandboxRefusals = [...record.sandboxRefusals, refusal];
    this.#save(record);
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
    return this.#views.listeningPorts();
  }

  /** Each running task's processes for the port scan: from its cgroup, or null where it has none (find them by mark). */
  portProcesses(): Map<string, number[] | null> {
    return this.#signals.processes();
  }

  /** Drops settled tasks (and their logs) of a session, only those in `only` when given; running and queued ones stay. */
  clearFinished(sessionId: string, only?: readonly string[]): Promise<string[]> {
    const now = this.#now();
    const chosen = only ? new Set(only) : null;
    return this.#index.remove(
      sessionId,
      (record) =>
        (!chosen || chosen.has(record.id)) &&
        !['running', 'queued', 'orphaned'].includes(this.#views.row(record, now).status),
    );
  }

  /**
   * Before a session is deleted: stops every unsettled task of it and ends its provable leftovers,
   * so nothing of it is left running without a record. Throws (and deletes nothing) when a task
   * would not end.
   */
  async stopSession(sessionId: string): Promise<void> {
    const [failed] = await this.#endings.stopAll(
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
    for (const failure of await this.#endings.stopAll([...this.#live.values()], 'Drover was shutting down'))
      log(`at shutdown: ${failure.message}`);
    this.#closed = true;
  }

  #create(request: StartRequest, foreground: boolean): Live {
    const kind = request.kind ?? 'command';
    this.#launcher.requireRunner(kind);
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
      this.#scheduler
        .takeStartable()
        .map((live) => this.#launcher.launch(live).finally(() => (live.launching = false))),
    );
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
    this.#listener.taskChanged(this.#views.row(record, this.#now()));
  }
}
