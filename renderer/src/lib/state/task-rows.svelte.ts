import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { TaskRow } from '@shared/contract.js';
import { isSettled } from '@shared/domain/task-status.js';
import type { FinishedCounts, FinishedFilter } from '@shared/schemas/task-page.js';
import { FINISHED_PAGE_DEFAULT, FINISHED_PAGE_MAX } from '@shared/domain/page-sizes.js';
import { isActiveTask, isFinishedTask, taskNumber } from '@shared/domain/task-order.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';
import { TaskOutputs } from './task-output.svelte.js';
import { FinishedPages } from './finished-pages.svelte.js';
import { FinishedClear } from './finished-clear.svelte.js';
import { TaskLookups } from './task-lookups.js';
import { answerOr, type OpenPrefetch } from './open-prefetch.js';
import { inQueueOrder, isLeftover, STATUS_RANK } from './task-order.js';

/** An event that came while a load was in flight, replayed onto its answer. */
type Pending = { row: TaskRow } | { removed: readonly string[] };

/**
 * The tasks of one session, kept current by the contract's events, and the output of those a
 * view is showing (`watch`, fetched by TaskOutputs). A session opens with its live tasks whole and
 * the Finished list's counts and first page (issue 18); finished rows load page by page as the
 * list scrolls, and a row no page has loaded is fetched by id when something asks for it.
 */
export class TaskRows {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  /** Every row known here: the live ones, the loaded finished pages, and rows fetched by id or for the Work tab. */
  readonly #tasks = new SvelteMap<string, TaskRow>();
  /** Cleared, or unknown to the service. */
  readonly #gone = new SvelteSet<string>();
  #loaded = $state(false);
  #loading = $state(false);
  #loadError = $state<string | null>(null);
  /** Sorted only when read: the live tasks and leftovers sort apart, as the Finished rows are many. */
  readonly #list = $derived(inQueueOrder(this.#tasks.values()));
  readonly #live = $derived(inQueueOrder([...this.#tasks.values()].filter(isActiveTask)));
  readonly #runningCount = $derived(this.#live.filter((task) => task.status === 'running').length);
  /** Tasks whose processes are provably still running from an earlier run of Drover. */
  readonly #leftovers = $derived(inQueueOrder([...this.#tasks.values()].filter(isLeftover)));
  readonly #pages: FinishedPages;
  readonly #clear: FinishedClear;
  readonly #finished = $derived.by(() =>
    this.#pages.ids.flatMap((id) => {
      const task = this.#tasks.get(id);
      return task && !this.#clear.hides(task) ? [task] : [];
    }),
  );
  #finishedOpen = $state(false);
  /** The highest task number the last load counted: a task past it is new since then. */
  #newest = 0;

  /** Row events seen per task: a fetched row older than an event that came meanwhile must not replace it. */
  readonly #rowEvents = new Map<string, number>();
  readonly #outputs: TaskOutputs;
  readonly #lookups: TaskLookups;
  #pending: Pending[] | null = null;
  #loadSeq = 0;
  /** Following events: answers that come after the session closed are dropped. */
  protected alive = false;
  readonly #prefetch: OpenPrefetch | null;

  /** `prefetch`: where the first answer may already be on its way (the page opened on this session). */
  constructor(api: DroverApi, sessionId: string, prefetch: OpenPrefetch | null = null) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#prefetch = prefetch;
    this.#pages = new FinishedPages(api, sessionId, (id) => this.#tasks.get(id));
    this.#clear = new FinishedClear(api, sessionId);
    this.#outputs = new TaskOutputs(api, sessionId, {
      row: (task, since) => {
        if ((this.#rowEvents.get(task.id) ?? 0) === since) this.#upsert(task);
      },
      rowVersion: (taskId) => this.#rowEvents.get(taskId) ?? 0,
      gone: (taskId) => this.#gone.add(taskId),
    });
    this.#lookups = new TaskLookups(api, sessionId, {
      found: (rows) => this.#take(rows),
      missing: (ids) => {
        const held = ids.filter((id) => this.#tasks.has(id));
        if (held.length > 0) this.#removeAll(held, false);
        for (const id of ids) this.#gone.add(id);
      },
      refreshed: (rows, versions) => {
        for (const row of rows)
          if (this.#tasks.has(row.id) && (this.#rowEvents.get(row.id) ?? 0) === versions.get(row.id)) this.#upsert(row);
      },
      version: (id) => this.#rowEvents.get(id) ?? 0,
    });
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  protected get api(): DroverApi {
    return this.#api;
  }

  /** The output of the tasks views show (TasksState answers for it). */
  protected get outputs(): TaskOutputs {
    return this.#outputs;
  }

  /** Every row known here, oldest first: all live tasks, and the finished ones loaded so far. */
  get list(): readonly TaskRow[] {
    return this.#list;
  }

  /** Queued and running tasks, oldest first (always whole). */
  get live(): readonly TaskRow[] {
    return this.#live;
  }

  get leftovers(): readonly TaskRow[] {
    return this.#leftovers;
  }

  get clearing(): boolean {
    return this.#clear.clearing;
  }

  /** Why the last clear failed. */
  get clearError(): string | null {
    return this.#clear.error;
  }

  /** The finished rows loaded so far under the filter, newest first by start time, without those just cleared. */
  get finished(): readonly TaskRow[] {
    return this.#finished;
  }

  /** How many finished tasks each filter shows (all of them, loaded or not), without those just cleared. */
  get finishedCounts(): FinishedCounts {
    return this.#clear.shown(this.#pages.counts);
  }

  /** More finished rows wait to be loaded under the filter. */
  get finishedHasMore(): boolean {
    return this.#pages.hasMore;
  }

  get finishedLoadingMore(): boolean {
    return this.#pages.loadingMore;
  }

  /** Why the last page of finished rows could not load. */
  get finishedError(): string | null {
    return this.#pages.error;
  }

  /** Loads the next page of finished rows (the list scrolled near its end). */
  loadMoreFinished(): Promise<void> {
    return this.#pages.more((rows) => this.#take(rows));
  }

  /** The Finished disclosure is open (kept while a task is open, so going back finds it as it was). */
  get finishedOpen(): boolean {
    return this.#finishedOpen;
  }

  set finishedOpen(open: boolean) {
    this.#finishedOpen = open;
  }

  get finishedFilter(): FinishedFilter {
    return this.#pages.filter;
  }

  set finishedFilter(filter: FinishedFilter) {
    void this.#pages.showFilter(filter, (rows) => this.#take(rows));
  }

  /** How many tasks the last Clear took, while it can still be undone; null otherwise. */
  get undoableClear(): number | null {
    return this.#clear.undoable;
  }

  /**
   * Clears the finished tasks under the filter (every one, loaded or not: the list as the person
   * saw it): they leave the list at once, and the host removes them and their logs only when the
   * undo window closes (the transcript keeps its own record).
   */
  clearFinished(): void {
    const counts = this.finishedCounts;
    const filter = this.#pages.filter;
    if (counts[filter] === 0) return;
    this.#clear.start(filter, counts, () => void this.commitClear());
  }

  /** Brings the cleared tasks back (nothing was removed yet). */
  undoClear(): void {
    this.#clear.undo();
  }

  /** Removes the cleared tasks now (the undo window closed, or the person left the session). */
  async commitClear(): Promise<void> {
    const removed = await this.#clear.commit(() => this.#loadSeq);
    if (this.alive && removed.length > 0) this.#removeAll(removed);
  }

  /** Seconds a running task has been quiet, once past the threshold; null otherwise. Pass a ticking clock. */
  silentFor(taskId: string, now: number): number | null {
    const task = this.#tasks.get(taskId);
    return task ? this.#outputs.silentFor(task, now) : null;
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

  /**
   * The task's row. One no page has loaded is asked for by id (answered soon after); until then
   * this is undefined and `isGone` false.
   */
  task(taskId: string): TaskRow | undefined {
    const task = this.#tasks.get(taskId);
    if (!task && this.#loaded && !this.#gone.has(taskId)) this.#lookups.ask(taskId);
    return task;
  }

  /** Why the row asked for by id could not be fetched (`retryTask` asks again); null otherwise. */
  taskError(taskId: string): string | null {
    return this.#lookups.error(taskId);
  }

  retryTask(taskId: string): void {
    this.#lookups.retry(taskId);
  }

  /** True when the task was cleared, or the service does not know it. */
  isGone(taskId: string): boolean {
    return this.#gone.has(taskId);
  }

  /**
   * Loads the session's tasks started for items of the work list `listId` (the Work tab shows
   * them on their items, finished ones too); events keep them current. Answers why it could not, or null.
   */
  loadWorkListTasks(listId: string): Promise<string | null> {
    return this.#lookups.workList(listId);
  }

  /** Follows this session's task events and loads the list; returns a function that stops. */
  start(): () => void {
    this.alive = true;
    this.#outputs.start();
    const offs = [
      this.#api.on('taskUpdated', ({ task }) => {
        if (task.sessionId !== this.#sessionId) return;
        this.#rowEvents.set(task.id, (this.#rowEvents.get(task.id) ?? 0) + 1);
        this.onTaskUpdated(task);
      }),
      this.#api.on('taskOutput', ({ sessionId, taskId }) => {
        if (sessionId === this.#sessionId) this.#outputs.printed(taskId);
      }),
      this.#api.on('tasksCleared', ({ sessionId, removed }) => {
        if (sessionId !== this.#sessionId) return;
        this.#removeAll(removed);
        // The counts of rows no page loaded come afresh from the host.
        void this.load();
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
      this.alive = false;
      this.#loadSeq++;
      this.#pending = null;
      this.#outputs.stop();
    };
  }

  /**
   * Loads what the panel shows first (live tasks, the Finished counts and as many finished rows as
   * were loaded), and the output of every watched task (after a reconnect). Finished rows held
   * outside the answer (fetched by id, or for the Work tab) stay and are read again.
   */
  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#pending = [];
    this.#loading = true;
    try {
      const filter = this.#pages.filter;
      // A reload (reconnect, Clear, Reap) keeps the Finished list as long as it was, up to the most a page holds.
      const limit = Math.min(FINISHED_PAGE_MAX, Math.max(FINISHED_PAGE_DEFAULT, this.#pages.ids.length));
      const prefetched = limit === FINISHED_PAGE_DEFAULT ? this.#prefetch?.takeTasks(this.#sessionId, filter) : null;
      // Events that came since the prefetch was sent go before those seen since this load began.
      if (prefetched) this.#pending = [...prefetched.events, ...(this.#pending ?? [])];
      const open = await answerOr(prefetched, () => this.#api.openTasks({ sessionId: this.#sessionId, filter, limit }));
      if (seq !== this.#loadSeq) return;
      const fresh = new Map([...open.live, ...open.finished.tasks].map((task) => [task.id, task]));
      const reread: string[] = [];
      for (const [id, task] of this.#tasks) {
        if (fresh.has(id)) continue;
        // The live tasks are whole in the answer: one not there has settled or gone since.
        if (isFinishedTask(task)) reread.push(id);
        else this.#tasks.delete(id);
      }
      for (const [id, task] of fresh) if (this.#tasks.get(id) !== task) this.#tasks.set(id, task);
      this.#newest = open.newest;
      // The person chose another filter while this was on its way: its own first page is coming.
      if (this.#pages.filter === filter) this.#pages.reset(open.counts, filter, open.finished);
      else this.#pages.recount(open.counts);
      this.#clear.landed(seq);
      this.#lookups.reset();
      if (reread.length > 0) void this.#lookups.refresh(reread);
      for (const event of this.#pending ?? []) {
        if ('row' in event) this.onTaskUpdated(event.row, false);
        else this.#removeAll(event.removed, false);
      }
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

  /** A row from an event or an answer: kept, counted and placed in the Finished list. */
  protected onTaskUpdated(task: TaskRow, record = true): void {
    const before = this.#tasks.get(task.id);
    if (!this.#upsert(task)) return;
    // A row not known here existed when the session opened when its number is not past the newest then.
    this.#pages.changed(before, task, taskNumber(task.id) <= this.#newest);
    this.#newest = Math.max(this.#newest, taskNumber(task.id));
    if (record) this.#pending?.push({ row: task });
    if (isSettled(task.status) && (!before || !isSettled(before.status))) this.#outputs.settled(task.id);
  }

  /** A row never goes back in its life (a stale answer racing an event must not win); true when kept. */
  #upsert(task: TaskRow): boolean {
    const current = this.#tasks.get(task.id);
    if (current && STATUS_RANK[task.status] < STATUS_RANK[current.status]) return false;
    this.#tasks.set(task.id, task);
    return true;
  }

  /** Rows of a page or a lookup, kept unless an event brought a newer one (or the task was cleared). */
  #take(rows: readonly TaskRow[]): void {
    for (const row of rows) if (!this.#tasks.has(row.id) && !this.#gone.has(row.id)) this.#tasks.set(row.id, row);
  }

  /** Tasks removed from the session (cleared): the subclass forgets what it keeps of them. */
  protected forgotten(_ids: readonly string[]): void {}

  #removeAll(removed: readonly string[], record = true): void {
    for (const id of removed) {
      this.#tasks.delete(id);
      this.#gone.add(id);
      this.#rowEvents.delete(id);
    }
    this.#pages.removed(removed);
    this.#outputs.forget(removed);
    this.forgotten(removed);
    if (record) this.#pending?.push({ removed });
  }
}
