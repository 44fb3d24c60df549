import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { Message } from '@shared/contract.js';
import { MESSAGE_FIRST_PAGE, MESSAGE_PAGE_DEFAULT, MESSAGE_PAGE_MAX } from '@shared/domain/page-sizes.js';
import { DroverError } from '@shared/ipc/drover-error.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';
import { answerOr, type OpenPrefetch } from './open-prefetch.js';

/**
 * The transcript of one session, oldest first. Messages are added (`messageAdded`) and
 * change in place (`messageUpdated`: streaming text grows, a tool call settles), always
 * replaced whole by id. Events that arrive while a load is in flight are replayed onto
 * its answer, so a reload never puts back an older copy of a message.
 *
 * A session opens on its newest page of messages; older pages load as the reader scrolls up
 * (`loadOlder`), with the oldest loaded id as the cursor (issue 18).
 */
export class TranscriptState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #messages = $state.raw<readonly Message[]>([]);
  #loaded = $state(false);
  #loading = $state(false);
  #loadError = $state<string | null>(null);
  #notFound = $state(false);
  #sending = $state(false);
  #postError = $state<string | null>(null);
  #loadSeq = 0;
  /** Older messages wait before the first one held. */
  #hasOlder = $state(false);
  #loadingOlder = $state(false);
  #olderError = $state<string | null>(null);
  /** Foreground commands being handed to the background at the person's request, and why one was not. */
  readonly #moving = new SvelteSet<string>();
  readonly #moveErrors = new SvelteMap<string, string>();
  /** Messages delivered by events during the load in flight, replayed onto its answer. */
  #pending: Message[] | null = null;

  readonly #prefetch: OpenPrefetch | null;

  /** `prefetch`: where the first page may already be on its way (the page opened on this session). */
  constructor(api: DroverApi, sessionId: string, prefetch: OpenPrefetch | null = null) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#prefetch = prefetch;
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** Older messages than those held exist (scrolling up loads them). */
  get hasOlder(): boolean {
    return this.#hasOlder;
  }

  get loadingOlder(): boolean {
    return this.#loadingOlder;
  }

  /** Why the last older page could not load. */
  get olderError(): string | null {
    return this.#olderError;
  }

  /** Loads the page before the first message held; true when it added any. */
  async loadOlder(): Promise<boolean> {
    const first = this.#messages[0];
    if (!this.#hasOlder || this.#loadingOlder || !first) return false;
    const seq = this.#loadSeq;
    this.#loadingOlder = true;
    this.#olderError = null;
    try {
      const page = newestPage(
        await this.#api.listMessages({
          sessionId: this.#sessionId,
          beforeId: first.id,
          limit: MESSAGE_PAGE_DEFAULT + 1,
        }),
        MESSAGE_PAGE_DEFAULT,
      );
      if (seq !== this.#loadSeq) return false;
      this.#hasOlder = page.more;
      const older = page.messages;
      const held = new Set(this.#messages.map((message) => message.id));
      const fresh = older.filter((message) => !held.has(message.id));
      if (fresh.length > 0) this.#messages = [...fresh, ...this.#messages];
      return fresh.length > 0;
    } catch (error) {
      if (seq === this.#loadSeq) this.#olderError = `Could not load earlier messages: ${errorMessage(error)}`;
      return false;
    } finally {
      if (seq === this.#loadSeq) this.#loadingOlder = false;
    }
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

  /** The service says this session does not exist. */
  get notFound(): boolean {
    return this.#notFound;
  }

  get sending(): boolean {
    return this.#sending;
  }

  /** Why the last post failed; null once one succeeds or it is cleared. */
  get postError(): string | null {
    return this.#postError;
  }

  /** Follows new messages of this session and loads the transcript; returns a stop function. */
  start(): () => void {
    const onMessage = ({ message }: { message: Message }) => {
      if (message.sessionId === this.#sessionId) this.#receive(message);
    };
    const offs = [this.#api.on('messageAdded', onMessage), this.#api.on('messageUpdated', onMessage)];
    void this.load();
    return () => {
      for (const off of offs) off();
      this.#loadSeq++;
      this.#pending = null;
    };
  }

  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#pending = [];
    this.#loading = true;
    // An older page on its way is dropped (its answer is for the load before).
    this.#loadingOlder = false;
    try {
      // A reload (after a reconnect) keeps as much as the reader had loaded, up to the most a page holds.
      const limit = Math.min(MESSAGE_PAGE_MAX, Math.max(MESSAGE_FIRST_PAGE, this.#messages.length));
      const prefetched = limit === MESSAGE_FIRST_PAGE ? this.#prefetch?.takeMessages(this.#sessionId) : null;
      // Events that came since the prefetch was sent go before those seen since this load began.
      if (prefetched) this.#pending = [...prefetched.events, ...(this.#pending ?? [])];
      // One more than is shown is asked for, so "there are older ones" is known, not guessed from a full page.
      const asked = Math.min(MESSAGE_PAGE_MAX, limit + 1);
      const page = newestPage(
        await answerOr(prefetched, () => this.#api.listMessages({ sessionId: this.#sessionId, limit: asked })),
        asked > limit ? limit : limit - 1,
      );
      if (seq !== this.#loadSeq) return;
      const fresh = page.messages;
      const first = fresh[0];
      this.#hasOlder = page.more;
      // Held messages older than the fresh page are dropped, and so are changes to them that came
      // meanwhile: the transcript stays one unbroken run, and their pages bring them when loaded.
      const before = (message: Message) => this.#hasOlder && first !== undefined && message.id < first.id;
      this.#messages = first ? this.#messages.filter((message) => message.id >= first.id) : [];
      this.#merge([...fresh, ...(this.#pending ?? []).filter((message) => !before(message))]);
      this.#loaded = true;
      this.#loadError = null;
      this.#notFound = false;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      if (error instanceof DroverError && error.code === 'not_found') this.#notFound = true;
      this.#loadError = `Could not load the transcript: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#loadSeq) {
        this.#pending = null;
        this.#loading = false;
      }
    }
  }

  /** Adds the person's message; true when it was stored. */
  async post(text: string): Promise<boolean> {
    if (this.#sending || text.trim().length === 0) return false;
    this.#sending = true;
    this.#postError = null;
    try {
      const message = await this.#api.postMessage({ sessionId: this.#sessionId, text });
      // Its event may have come first: never let this copy replace a newer one.
      if (!this.#messages.some((known) => known.id === message.id)) this.#receive(message);
      return true;
    } catch (error) {
      this.#postError = `Could not send: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#sending = false;
    }
  }

  isMoving(taskId: string): boolean {
    return this.#moving.has(taskId);
  }

  moveError(taskId: string): string | null {
    return this.#moveErrors.get(taskId) ?? null;
  }

  /**
   * "Background" on a running foreground command: hands it to the background now, as the wait
   * would at its end. The row learns the outcome from the task's and the message's events.
   */
  async moveToBackground(taskId: string): Promise<boolean> {
    if (this.#moving.has(taskId)) return false;
    this.#moving.add(taskId);
    this.#moveErrors.delete(taskId);
    try {
      await this.#api.backgroundTask({ sessionId: this.#sessionId, taskId });
      return true;
    } catch (error) {
      this.#moveErrors.set(taskId, errorMessage(error));
      return false;
    } finally {
      this.#moving.delete(taskId);
    }
  }

  clearPostError(): void {
    this.#postError = null;
  }

  #receive(message: Message): void {
    // A change to a message older than those held is not shown: its page brings it when loaded.
    const first = this.#messages[0];
    if (this.#hasOlder && first && message.id < first.id) return;
    this.#merge([message]);
    this.#pending?.push(message);
  }

  /** Later entries win over earlier ones and over what is held. */
  #merge(incoming: readonly Message[]): void {
    const current = this.#messages;
    const last = current[current.length - 1];
    if (incoming.length === 1) {
      const message = incoming[0]!;
      // The common cases: one new message after the last one, or one changing in place.
      if (!last || message.id > last.id) {
        this.#messages = [...current, message];
        return;
      }
      const index = current.findLastIndex((known) => known.id === message.id);
      if (index !== -1) {
        const next = [...current];
        next[index] = message;
        this.#messages = next;
        return;
      }
    }
    const byId = new Map<number, Message>();
    for (const message of current) byId.set(message.id, message);
    for (const message of incoming) byId.set(message.id, message);
    this.#messages = [...byId.values()].sort((a, b) => a.id - b.id);
  }
}

/**
 * The newest `shown` of a page asked for with at least one more (oldest first): `more` when that
 * extra one came, that is when there are older messages still.
 */
function newestPage(messages: Message[], shown: number): { messages: Message[]; more: boolean } {
  return messages.length > shown
    ? { messages: messages.slice(messages.length - shown), more: true }
    : { messages, more: false };
}
