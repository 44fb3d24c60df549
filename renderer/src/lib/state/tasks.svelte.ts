import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { TaskOutput, TaskRow, TaskStatus } from '@shared/contract.js';
import { isSettled, SILENT_AFTER_SECONDS } from '@shared/schemas/task.js';
import { DroverError } from '@shared/ipc/errors.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';
import { filterFinished, finishedNewestFirst, type FinishedFilter } from '../tasks.js';
import { DEFAULT_TAIL, TaskOutputs } from './task-output.svelte.js';

/** How long Clear can be undone: the tasks and their logs are removed only after this. */
export const UNDO_CLEAR_MS = 6_000;

export { DEFAULT_TAIL, OUTPUT_REFETCH_MS } from './task-output.svelte.js';

/** What the operator's shell line came to: the task it started, or why it failed. */
export type ShellOutcome =
  { ok: true; task: TaskRow; notice: string | null } | { ok: false; error: string; code: string | null };

type Change = (tasks: Map<string, TaskRow>) => void;

/**
 * The tasks of one session, kept current by the contract's events, and the output of those a
 * view is showing (`watch`, fetched by TaskOutputs).
 */
export class TasksState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  readonly #tasks = new SvelteMap<string, TaskRow>();
  /** When each task last printed, from the output events: "silent for" is kept current locally, never polled. */
  readonly #lastOutput = new SvelteMap<string, number>();
  readonly #notices = new SvelteMap<string, string>();
  readonly #stopping = new SvelteSet<string>();
  readonly #stopErrors = new SvelteMap<string, string>();
  /** Cleared, or unknown to the service. */
  readonly #gone = new SvelteSet<string>();
  #loaded = $state(false);
  #loading = $state(false);
  #loadError = $state<string | null>(null);
  readonly #list = $derived([...this.#tasks.values()].sort(byQueueOrder));
  readonly #runningCount = $derived(this.#list.filter((task) => task.status === 'running').length);
  /** Tasks whose processes are provably still running from an earlier run of Drover. */
  readonly #leftovers = $derived(this.#list.filter((task) => task.leftover));
  #reaping = $state(false);
  #reapMessage = $state<string | null>(null);
  #clearing = $state(false);
  #clearError = $state<string | null>(null);
  /** Tasks the person cleared, hidden until the undo window closes and the host removes them. */
  #pendingClear = $state.raw<{ ids: readonly string[]; timer: ReturnType<typeof setTimeout> } | null>(null);
  readonly #finished = $derived.by(() => {
    const hidden = new Set(this.#pendingClear?.ids ?? []);
    return finishedNewestFirst(this.#list).filter((task) => !hidden.has(task.id));
  });
  #finishedOpen = $state(false);
  #finishedFilter = $state<FinishedFilter>('all');
  #rerunError = $state<string | null>(null);

  /** Row events seen per task: a fetched row older than an event that came meanwhile must not replace it. */
  readonly #rowEvents = new Map<string, number>();
  readonly #outputs: TaskOutputs;
  #pending: Change[] | null = null;
  #loadSeq = 0;
  #alive = false;

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#outputs = new TaskOutputs(api, sessionId, {
      row: (task, since) => {
        if ((this.#rowEvents.get(task.id) ?? 0) === since) this.#apply(upsert(task));
      },
      rowVersion: (taskId) => this.#rowEvents.get(taskId) ?? 0,
      gone: (taskId) => this.#gone.add(taskId),
    });
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  /** Oldest first. */
  get list(): readonly TaskRow[] {
    return this.#list;
  }

  get leftovers(): readonly TaskRow[] {
    return this.#leftovers;
  }

  get reaping(): boolean {
    return this.#reaping;
  }

  /** What the last reap did, in words (or why it failed). */
  get reapMessage(): string | null {
    return this.#reapMessage;
  }

  /** Ends every leftover of this session from an earlier run; only provably ours are touched. */
  async reap(): Promise<void> {
    if (this.#reaping) return;
    this.#reaping = true;
    this.#reapMessage = null;
    try {
      const { reaped, untouched } = await this.#api.reapTasks({ sessionId: this.#sessionId });
      const pids = reaped.reduce((sum, entry) => sum + entry.pids.length, 0);
      this.#reapMessage =
        reaped.length === 0
          ? 'Nothing was left to end.'
          : `Ended ${reaped.length === 1 ? '1 task' : `${reaped.length} tasks`} (${pids === 1 ? '1 process' : `${pids} processes`}).` +
            (untouched.length > 0 ? ` ${untouched.length} left alone: not provably Drover's.` : '');
      if (this.#alive) await this.load();
    } catch (error) {
      this.#reapMessage = `Could not end them: ${errorMessage(error)}`;
    } finally {
      this.#reaping = false;
    }
  }

  get clearing(): boolean {
    return this.#clearing;
  }

  /** Why the last clear failed. */
  get clearError(): string | null {
    return this.#clearError;
  }

  /** Settled tasks that are not leftovers, newest first by start time, without those just cleared. */
  get finished(): readonly TaskRow[] {
    return this.#finished;
  }

  /** The Finished disclosure is open (kept while a task is open, so going back finds it as it was). */
  get finishedOpen(): boolean {
    return this.#finishedOpen;
  }

  set finishedOpen(open: boolean) {
    this.#finishedOpen = open;
  }

  get finishedFilter(): FinishedFilter {
    return this.#finishedFilter;
  }

  set finishedFilter(filter: FinishedFilter) {
    this.#finishedFilter = filter;
  }

  /** How many tasks the last Clear took, while it can still be undone; null otherwise. */
  get undoableClear(): number | null {
    return this.#pendingClear?.ids.length ?? null;
  }

  /**
   * Clears the finished tasks shown now (only those the status filter shows): they leave the list
   * at once, and the host removes them and their logs only when the undo window closes (the
   * transcript keeps its own record).
   */
  clearFinished(): void {
    const ids = filterFinished(this.#finished, this.#finishedFilter).map((task) => task.id);
    if (ids.length === 0) return;
    // A second Clear inside the window joins the first: one undo brings back both.
    if (this.#pendingClear) clearTimeout(this.#pendingClear.timer);
    const timer = setTimeout(() => void this.commitClear(), UNDO_CLEAR_MS);
    this.#pendingClear = { ids: [...(this.#pendingClear?.ids ?? []), ...ids], timer };
  }

  /** Brings the cleared tasks back (nothing was removed yet). */
  undoClear(): void {
    if (!this.#pendingClear) return;
    clearTimeout(this.#pendingClear.timer);
    this.#pendingClear = null;
  }

  /** Removes the cleared tasks now (the undo window closed, or the person left the session). */
  async commitClear(): Promise<void> {
    const pending = this.#pendingClear;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#pendingClear = null;
    this.#clearing = true;
    this.#clearError = null;
    try {
      const { removed, kept } = await this.#api.clearFinishedTasks({
        sessionId: this.#sessionId,
        taskIds: [...pending.ids],
      });
      if (this.#alive) this.#apply(removeAll(removed), removed);
      // A task whose transcript record could not be saved stays, and the panel says why.
      if (kept && kept.length > 0) {
        const first = kept[0]!;
        this.#clearError = `Kept ${kept.map((entry) => entry.taskId).join(', ')}: its transcript record could not be saved first (${first.reason}).`;
      }
    } catch (error) {
      this.#clearError = `Could not clear: ${errorMessage(error)}`;
    } finally {
      this.#clearing = false;
    }
  }

  /** Why the last rerun failed. */
  get rerunError(): string | null {
    return this.#rerunError;
  }

  /** Runs a task's command again (same folder, same background flag) as the person's shell line. */
  async rerun(taskId: string): Promise<ShellOutcome> {
    this.#rerunError = null;
    try {
      const { task, notice } = await this.#api.rerunTask({ sessionId: this.#sessionId, taskId });
      if (this.#alive) {
        if (notice) this.#notices.set(task.id, notice);
        this.#onTaskUpdated(task);
      }
      return { ok: true, task, notice };
    } catch (error) {
      this.#rerunError = `Could not run it again: ${errorMessage(error)}`;
      return { ok: false, error: errorMessage(error), code: error instanceof DroverError ? error.code : null };
    }
  }

  /** Shows the task's log in the file manager where the app can; answers its path either way. */
  async revealLog(taskId: string): Promise<{ revealed: boolean; path: string }> {
    return this.#api.revealTaskLog({ sessionId: this.#sessionId, taskId });
  }

  /** The desktop app's save dialog: where the copy went, or null when the person cancelled. */
  async saveLog(taskId: string): Promise<string | null> {
    return (await this.#api.saveTaskLog({ sessionId: this.#sessionId, taskId })).savedTo;
  }

  /** Seconds a running task has been quiet, once past the threshold; null otherwise. Pass a ticking clock. */
  silentFor(taskId: string, now: number): number | null {
    const task = this.#tasks.get(taskId);
    if (!task || task.status !== 'running' || !task.startedAt) return null;
    const last =
      this.#lastOutput.get(taskId) ?? (task.lastOutputAt ? Date.parse(task.lastOutputAt) : Date.parse(task.startedAt));
    const quiet = Math.floor((now - last) / 1000);
    return quiet >= SILENT_AFTER_SECONDS ? quiet : null;
  }

  get runningCount(): number {
    return this.#runningCount;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  get loading(): boolean {
    return this.#loading;
  }

  get loadError(): string | null {
    return this.#loadError;
  }

  task(taskId: string): TaskRow | undefined {
    return this.#tasks.get(taskId);
  }

  /** True when the task was cleared, or the service does not know it. */
  isGone(taskId: string): boolean {
    return this.#gone.has(taskId);
  }

  /** The last output fetched for the task. */
  output(taskId: string): TaskOutput | undefined {
    return this.#outputs.output(taskId);
  }

  /** The tail (in lines) the task's output is fetched with. */
  outputTail(taskId: string): number {
    return this.#outputs.tail(taskId);
  }

  outputError(taskId: string): string | null {
    return this.#outputs.error(taskId);
  }

  /** What the shell line that started the task answered (handed to the background, or refused). */
  notice(taskId: string): string | null {
    return this.#notices.get(taskId) ?? null;
  }

  isStopping(taskId: string): boolean {
    return this.#stopping.has(taskId);
  }

  stopError(taskId: string): string | null {
    return this.#stopErrors.get(taskId) ?? null;
  }

  /** Follows this session's task events and loads the list; returns a function that stops. */
  start(): () => void {
    this.#alive = true;
    this.#outputs.start();
    const offs = [
      this.#api.on('taskUpdated', ({ task }) => {
        if (task.sessionId !== this.#sessionId) return;
        this.#rowEvents.set(task.id, (this.#rowEvents.get(task.id) ?? 0) + 1);
        this.#onTaskUpdated(task);
      }),
      this.#api.on('taskOutput', ({ sessionId, taskId }) => {
        if (sessionId !== this.#sessionId) return;
        this.#lastOutput.set(taskId, Date.now());
        this.#outputs.printed(taskId);
      }),
      this.#api.on('tasksCleared', ({ sessionId, removed }) => {
        if (sessionId === this.#sessionId) this.#apply(removeAll(removed), removed);
      }),
    ];
    // Closing or reloading the tab ends the undo window too: send the clear while the page can.
    const onPageHide = () => void this.commitClear();
    globalThis.addEventListener?.('pagehide', onPageHide);
    offs.push(() => globalThis.removeEventListener?.('pagehide', onPageHide));
    void this.load();
    return () => {
      for (const off of offs) off();
      // Leaving the session ends the undo window: what the person cleared goes now.
      void this.commitClear();
      this.#alive = false;
      this.#loadSeq++;
      this.#pending = null;
      this.#outputs.stop();
    };
  }

  /** Loads the list again, and the output of every watched task (after a reconnect). */
  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#pending = [];
    this.#loading = true;
    try {
      const { tasks } = await this.#api.listTasks({ sessionId: this.#sessionId });
      if (seq !== this.#loadSeq) return;
      const next = new Map(tasks.map((task) => [task.id, task]));
      for (const change of this.#pending ?? []) change(next);
      for (const id of [...this.#tasks.keys()]) if (!next.has(id)) this.#tasks.delete(id);
      for (const [id, task] of next) if (this.#tasks.get(id) !== task) this.#tasks.set(id, task);
      this.#loaded = true;
      this.#loadError = null;
      this.#outputs.reloadWatched();
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#loadError = `Could not load the tasks: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#loadSeq) {
        this.#pending = null;
        this.#loading = false;
      }
    }
  }

  /** Shows the task's output and keeps it current while it runs; returns a function that stops watching. */
  watch(taskId: string, tail = DEFAULT_TAIL): () => void {
    return this.#outputs.watch(taskId, tail);
  }

  /** Fetches the last `tail` lines of the task's output (and its row). */
  loadOutput(taskId: string, tail?: number): Promise<void> {
    return this.#outputs.load(taskId, tail);
  }

  /** Stops the task and its process group; true when the service took the stop. */
  async stop(taskId: string): Promise<boolean> {
    if (this.#stopping.has(taskId)) return false;
    this.#stopping.add(taskId);
    this.#stopErrors.delete(taskId);
    try {
      const { task } = await this.#api.stopTask({ sessionId: this.#sessionId, taskId });
      if (this.#alive) this.#onTaskUpdated(task);
      return true;
    } catch (error) {
      this.#stopErrors.set(taskId, `Could not stop: ${errorMessage(error)}`);
      return false;
    } finally {
      this.#stopping.delete(taskId);
    }
  }

  /** Runs the operator's shell line; a foreground run answers when it ends or is handed to the background. */
  async runShell(command: string, background: boolean): Promise<ShellOutcome> {
    try {
      const { task, notice } = await this.#api.runShell({ sessionId: this.#sessionId, command, background });
      if (this.#alive) {
        if (notice) this.#notices.set(task.id, notice);
        this.#onTaskUpdated(task);
      }
      return { ok: true, task, notice };
    } catch (error) {
      return { ok: false, error: errorMessage(error), code: error instanceof DroverError ? error.code : null };
    }
  }

  clearStopError(taskId: string): void {
    this.#stopErrors.delete(taskId);
  }

  #onTaskUpdated(task: TaskRow): void {
    const before = this.#tasks.get(task.id);
    this.#apply(upsert(task));
    if (isSettled(task.status) && (!before || !isSettled(before.status))) this.#outputs.settled(task.id);
  }

  #apply(change: Change, removed: readonly string[] = []): void {
    const next = new Map(this.#tasks);
    change(next);
    for (const id of [...this.#tasks.keys()]) if (!next.has(id)) this.#tasks.delete(id);
    for (const [id, task] of next) if (this.#tasks.get(id) !== task) this.#tasks.set(id, task);
    this.#pending?.push(change);
    for (const id of removed) {
      this.#gone.add(id);
      this.#notices.delete(id);
      this.#rowEvents.delete(id);
    }
    this.#outputs.forget(removed);
  }
}

const RANK: Record<TaskStatus, number> = {
  queued: 0,
  running: 1,
  succeeded: 2,
  failed: 2,
  timed_out: 2,
  stopped: 2,
  orphaned: 2,
  lost: 2,
};

/** A row never goes back in its life (a stale answer racing an event must not win). */
function upsert(task: TaskRow): Change {
  return (tasks) => {
    const current = tasks.get(task.id);
    if (current && RANK[task.status] < RANK[current.status]) return;
    tasks.set(task.id, task);
  };
}

function removeAll(ids: readonly string[]): Change {
  return (tasks) => {
    for (const id of ids) tasks.delete(id);
  };
}

function byQueueOrder(a: TaskRow, b: TaskRow): number {
  return Date.parse(a.queuedAt) - Date.parse(b.queuedAt) || taskNumber(a.id) - taskNumber(b.id);
}

function taskNumber(id: string): number {
  return Number(id.slice(id.indexOf('_') + 1));
}
