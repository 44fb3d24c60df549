import type { WorkList, WorkListEntry } from '@shared/schemas/work.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/**
 * A session's work list as the Work panel shows it (issue #15): the session's own list, or the
 * shared one the host was started with; the first answer names it. `workItemsChanged` only says
 * that the list changed, so each one reads it again; the newest read wins.
 */
export class WorkListState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  /** The list's id: the session's until the first answer names the list it reads. */
  #listId = $state('');
  #list = $state.raw<WorkList | null>(null);
  #error = $state<string | null>(null);
  #loading = $state(false);
  #changeError = $state<string | null>(null);
  #changing = $state<number | null>(null);
  #loadSeq = 0;

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#listId = sessionId;
  }

  get listId(): string {
    return this.#listId;
  }

  /** Null until the first read answers. */
  get list(): WorkList | null {
    return this.#list;
  }

  get loading(): boolean {
    return this.#loading;
  }

  /** Why the last read failed; null after a success. */
  get error(): string | null {
    return this.#error;
  }

  /** Why the last status change failed. */
  get changeError(): string | null {
    return this.#changeError;
  }

  /** The item whose status change is on its way. */
  get changing(): number | null {
    return this.#changing;
  }

  start(): () => void {
    const off = this.#api.on('workItemsChanged', ({ listId, revision }) => {
      if (listId !== this.#listId) return;
      if (this.#list && revision !== 0 && revision === this.#list.revision) return;
      void this.load();
    });
    void this.load();
    return () => {
      off();
      this.#loadSeq++;
    };
  }

  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#loading = true;
    try {
      const list = await this.#api.listWorkItems({ sessionId: this.#sessionId, includeCompleted: true });
      if (seq !== this.#loadSeq) return;
      this.#listId = list.listId;
      this.#list = list;
      this.#error = null;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#error = `Could not read the work items: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#loadSeq) this.#loading = false;
    }
  }

  /** The status menu of a row. The event that follows reads the list again. */
  async setStatus(itemId: number, status: WorkListEntry['status']): Promise<void> {
    this.#changing = itemId;
    this.#changeError = null;
    try {
      await this.#api.updateWorkItem({ listId: this.#listId, itemId, status });
    } catch (error) {
      this.#changeError = `Could not change #${itemId}: ${errorMessage(error)}`;
    } finally {
      if (this.#changing === itemId) this.#changing = null;
    }
    await this.load();
  }
}
