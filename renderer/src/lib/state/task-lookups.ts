import type { TaskRow } from '@shared/contract.js';
import type { DroverApi } from '../api.js';

/** Ids one lookup asks for at most (the contract's limit). */
const LOOKUP_BATCH = 500;

export interface LookupHooks {
  found(rows: readonly TaskRow[]): void;
  missing(ids: readonly string[]): void;
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

  /** Asks for the row, once; safe to call while rendering (the request goes out after it). */
  ask(id: string): void {
    if (this.#asked.has(id)) return;
    this.#asked.add(id);
    this.#queued.push(id);
    if (this.#queued.length === 1) queueMicrotask(() => void this.#flush());
  }

  /** Forgets what was asked: after a reload every row is asked for afresh. */
  reset(): void {
    this.#generation++;
    this.#asked.clear();
    this.#queued = [];
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
      } catch {
        // Asked again the next time something needs the row.
        if (generation !== this.#generation) return;
      }
      for (const id of batch) this.#asked.delete(id);
    }
  }
}
