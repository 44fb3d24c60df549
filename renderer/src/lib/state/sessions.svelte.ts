import type { Session, SessionMode } from '@shared/contract.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';
import { answerOr, type Prefetched, type SessionEvent } from './open-prefetch.js';

type Change = (list: readonly Session[]) => Session[];

/**
 * Every session, most recently updated first, kept current by the contract's events.
 * Events that arrive while a load is in flight are replayed onto its answer, so a
 * reload never loses a change that raced it.
 */
export class SessionsState {
  readonly #api: DroverApi;
  #list = $state.raw<readonly Session[]>([]);
  #loaded = $state(false);
  #loading = $state(false);
  #error = $state<string | null>(null);
  #loadSeq = 0;
  #pending: Change[] | null = null;

  constructor(api: DroverApi) {
    this.#api = api;
  }

  /** Sorted by updatedAt, newest first. */
  get list(): readonly Session[] {
    return this.#list;
  }

  /** True once the first load has answered. */
  get loaded(): boolean {
    return this.#loaded;
  }

  get loading(): boolean {
    return this.#loading;
  }

  /** The message of the last failed load or action; null after a success. */
  get error(): string | null {
    return this.#error;
  }

  byId(id: string): Session | undefined {
    return this.#list.find((session) => session.id === id);
  }

  /**
   * Follows the events and loads the list; returns a function that stops following. `first`: the
   * list's answer already asked for (boot.ts), with the changes that came since it was asked.
   */
  start(first: Prefetched<Session[], SessionEvent> | null = null): () => void {
    const offs = [
      this.#api.on('sessionUpserted', ({ session }) => this.#apply(upsert(session))),
      this.#api.on('sessionDeleted', ({ id }) => this.#apply(remove(id))),
    ];
    void this.load(first);
    return () => {
      for (const off of offs) off();
      this.#loadSeq++;
      this.#pending = null;
    };
  }

  async load(first: Prefetched<Session[], SessionEvent> | null = null): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#pending = [];
    this.#loading = true;
    try {
      const fresh = await answerOr(first, () => this.#api.listSessions({}));
      if (seq !== this.#loadSeq) return;
      let next: readonly Session[] = fresh;
      // What changed after the early request and before this state followed the events, then after.
      for (const event of first?.events ?? [])
        next = ('deleted' in event ? remove(event.deleted) : upsert(event.session))(next);
      for (const change of this.#pending ?? []) next = change(next);
      this.#list = sorted(next);
      this.#loaded = true;
      this.#error = null;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#error = `Could not load sessions: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#loadSeq) {
        this.#pending = null;
        this.#loading = false;
      }
    }
  }

  /** Starts a session; answers it, or null when it failed (see `error`). */
  async create(title?: string): Promise<Session | null> {
    this.#error = null;
    try {
      const session = await this.#api.createSession(title === undefined ? {} : { title });
      this.#apply(upsert(session));
      return session;
    } catch (error) {
      this.#error = `Could not create a session: ${errorMessage(error)}`;
      return null;
    }
  }

  async rename(id: string, title: string): Promise<boolean> {
    this.#error = null;
    try {
      const session = await this.#api.renameSession({ id, title });
      this.#apply(upsert(session));
      return true;
    } catch (error) {
      this.#error = `Could not rename the session: ${errorMessage(error)}`;
      return false;
    }
  }

  /** The person's switch between agent and plan mode; answers why it failed, or null. */
  async setMode(id: string, mode: SessionMode): Promise<string | null> {
    try {
      const session = await this.#api.setSessionMode({ id, mode });
      this.#apply(upsert(session));
      return null;
    } catch (error) {
      return `Could not ${mode === 'plan' ? 'turn plan mode on' : 'turn plan mode off'}: ${errorMessage(error)}`;
    }
  }

  async remove(id: string): Promise<boolean> {
    this.#error = null;
    try {
      await this.#api.deleteSession({ id });
      this.#apply(remove(id));
      return true;
    } catch (error) {
      this.#error = `Could not delete the session: ${errorMessage(error)}`;
      return false;
    }
  }

  clearError(): void {
    this.#error = null;
  }

  #apply(change: Change): void {
    this.#list = sorted(change(this.#list));
    this.#pending?.push(change);
  }
}

function upsert(session: Session): Change {
  return (list) => {
    const index = list.findIndex((item) => item.id === session.id);
    if (index === -1) return [...list, session];
    const current = list[index]!;
    // A stale copy (an event replayed onto a newer load) must not win.
    if (Date.parse(session.updatedAt) < Date.parse(current.updatedAt)) return [...list];
    const next = [...list];
    next[index] = session;
    return next;
  };
}

function remove(id: string): Change {
  return (list) => list.filter((item) => item.id !== id);
}

function sorted(list: readonly Session[]): Session[] {
  return [...list].sort(
    (a, b) =>
      Date.parse(b.updatedAt) - Date.parse(a.updatedAt) ||
      Date.parse(b.createdAt) - Date.parse(a.createdAt) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
