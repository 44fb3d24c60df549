import { SvelteMap } from 'svelte/reactivity';
import type { TaskRow } from '@shared/contract.js';
import { FIND_TASKS_MAX, isActiveTask } from '@shared/domain/task-order.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** Ids one lookup asks for at most (the contract's limit). */
const LOOKUP_BATCH = FIND_TASKS_MAX;

export interface LookupHooks {
  /** Rows asked for by id, or of a work list: kept where nothing newer is known. */
  found(rows: readonly TaskRow[]): void;
  /** Ids the service does not know (cleared): forgotten if held. */
  missing(ids: readonly string[]): void;
  /** Rows held across a reload, read again; `versions`: the row events seen per id when asked. */
  refreshed(rows: readonly TaskRow[], versions: ReadonlyMap<string, number>): void;
  /** Row events seen for the task so far. */
  version(id: string): number;
}

/**
 * Rows asked for by id that no page has loaded (a link in the transcript, an `openTask` event, a
 * "started by" link): the asks of one moment go out as one request, and each id is asked once
 * until `reset` (a reload).
 */
export class TaskLookups {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  readonly #hooks: LookupHooks;
  readonly #asked = new Set<string>();
  /** Why an ask failed, per id: not asked again by itself (the view offers Try again), only after `reset`. */
  readonly #failed = new SvelteMap<string, string>();
  #queued: string[] = [];
  #generation = 0;

  constructor(api: DroverApi, sessionId: string, hooks: LookupHooks) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#hooks = hooks;
  }

  /** True while the id has been asked for and not answered. */
  asking(id: string): boolean {
    return this.#asked.has(id);
  }

  /** Why the row could not be fetched; null when it was not asked for or is on its way. */
  error(id: string): string | null {
    return this.#failed.get(id) ?? null;
  }

  /** Asks again for a row whose lookup failed. */
  retry(id: string): void {
    this.#failed.delete(id);
    this.ask(id);
  }

  /** Asks for the row, once; safe to call while rendering (the request goes out after it). */
  ask(id: string): void {
    if (this.#asked.has(id) || this.#failed.has(id)) return;
    this.#asked.add(id);
    this.#queued.push(id);
    if (this.#queued.length === 1) queueMicrotask(() => void this.#flush());
  }

  /** Forgets what was asked: after a reload every row is asked for afresh. */
  reset(): void {
    this.#generation++;
    this.#asked.clear();
    this.#queued = [];
    // A view that shows a failed lookup reads this: it asks again now.
    this.#failed.clear();
  }

  /**
   * Reads again rows a reload's answer did not hold (kept on screen meanwhile): a row that changed
   * is updated, one removed while the connection was away goes.
   */
  async refresh(ids: readonly string[]): Promise<void> {
    const generation = this.#generation;
    for (let start = 0; start < ids.length; start += LOOKUP_BATCH) {
      const batch = ids.slice(start, start + LOOKUP_BATCH);
      const versions = new Map(batch.map((id) => [id, this.#hooks.version(id)]));
      try {
        const { tasks, missing } = await this.#api.findTasks({ sessionId: this.#sessionId, taskIds: batch });
        if (generation !== this.#generation) return;
        this.#hooks.refreshed(tasks, versions);
        this.#hooks.missing(missing);
      } catch {
        // Kept as they were: the next reload reads them again.
        return;
      }
    }
  }

  /** Loads the session's tasks started for items of a work list; answers why it could not, or null. */
  async workList(listId: string): Promise<string | null> {
    const generation = this.#generation;
    try {
      const { tasks } = await this.#api.workListTasks({ sessionId: this.#sessionId, listId });
      // After a reload that answered meanwhile, a live row here may be older than its answer: settled ones cannot be.
      if (generation === this.#generation) this.#hooks.found(tasks);
      else this.#hooks.found(tasks.filter((task) => !isActiveTask(task)));
      return null;
    } catch (error) {
      return `Could not load the tasks of these items: ${errorMessage(error)}`;
    }
  }

  async #flush(): Promise<void> {
    const generation = this.#generation;
    const ids = this.#queued;
    this.#queued = [];
    for (let start = 0; start < ids.length; start += LOOKUP_BATCH) {
      const batch = ids.slice(start, start + LOOKUP_BATCH);
      try {
        const { tasks, missing } = await this.#api.findTasks({ sessionId: this.#sessionId, taskIds: batch });
        if (generation !== this.#generation) return;
        this.#hooks.found(tasks);
        this.#hooks.missing(missing);
      } catch (error) {
        if (generation !== this.#generation) return;
        for (const id of batch) this.#failed.set(id, `Could not load ${id}: ${errorMessage(error)}`);
      }
      for (const id of batch) this.#asked.delete(id);
    }
  }
}
