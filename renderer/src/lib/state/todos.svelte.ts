import type { Checklist } from '@shared/schemas/todos.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

export type TodoEdit = 'complete' | 'remove' | 'completeAll';

/**
 * One session's checklist (todo_write's list, issue #15): read at start and on `load` (after a
 * reconnect), kept current by `todosChanged` events, edited by the person through `edit`.
 */
export class TodosState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #checklist = $state.raw<Checklist | null>(null);
  #error = $state<string | null>(null);
  #editing = $state(false);
  #loadSeq = 0;
  /** An event arrived while a read was on its way: the event is newer than the answer. */
  #eventDuringLoad = false;

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  /** Null until the first read answers. */
  get checklist(): Checklist | null {
    return this.#checklist;
  }

  get items(): Checklist['items'] {
    return this.#checklist?.items ?? [];
  }

  /** Why the last read or edit failed; null after a success. */
  get error(): string | null {
    return this.#error;
  }

  /** An edit is on its way: the manager takes no second one meanwhile. */
  get editing(): boolean {
    return this.#editing;
  }

  start(): () => void {
    const off = this.#api.on('todosChanged', ({ sessionId, checklist }) => {
      if (sessionId !== this.#sessionId) return;
      this.#checklist = checklist;
      this.#eventDuringLoad = true;
    });
    void this.load();
    return () => {
      off();
      this.#loadSeq++;
    };
  }

  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#eventDuringLoad = false;
    try {
      const checklist = await this.#api.getTodos({ sessionId: this.#sessionId });
      if (seq !== this.#loadSeq) return;
      if (!this.#eventDuringLoad) this.#checklist = checklist;
      this.#error = null;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#error = `Could not read the checklist: ${errorMessage(error)}`;
    }
  }

  /** The manager's c, x and a. True when the edit was made (its event brings the list too). */
  async edit(action: TodoEdit, content?: string): Promise<boolean> {
    if (this.#editing) return false;
    this.#editing = true;
    try {
      const { checklist } = await this.#api.editTodo({
        sessionId: this.#sessionId,
        action,
        ...(action === 'completeAll' ? {} : { content }),
      });
      this.#checklist = checklist;
      this.#error = null;
      return true;
    } catch (error) {
      this.#error = `Could not change the checklist: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#editing = false;
    }
  }
}
