import type { Message } from '@shared/contract.js';
import { DroverError } from '@shared/ipc/errors.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/**
 * The transcript of one session, oldest first. Messages never change once written,
 * so a reload merges by id with whatever events delivered meanwhile.
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

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  get messages(): readonly Message[] {
    return this.#messages;
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
    const off = this.#api.on('messageAdded', ({ message }) => {
      if (message.sessionId === this.#sessionId) this.#merge([message]);
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
      const fresh = await this.#api.listMessages({ sessionId: this.#sessionId });
      if (seq !== this.#loadSeq) return;
      this.#merge(fresh);
      this.#loaded = true;
      this.#loadError = null;
      this.#notFound = false;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      if (error instanceof DroverError && error.code === 'not_found') this.#notFound = true;
      this.#loadError = `Could not load the transcript: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#loadSeq) this.#loading = false;
    }
  }

  /** Adds the person's message; true when it was stored. */
  async post(text: string): Promise<boolean> {
    if (this.#sending || text.trim().length === 0) return false;
    this.#sending = true;
    this.#postError = null;
    try {
      const message = await this.#api.postMessage({ sessionId: this.#sessionId, text });
      this.#merge([message]);
      return true;
    } catch (error) {
      this.#postError = `Could not send: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#sending = false;
    }
  }

  clearPostError(): void {
    this.#postError = null;
  }

  #merge(incoming: readonly Message[]): void {
    const current = this.#messages;
    const last = current[current.length - 1];
    // The common case: one new message after the last one.
    if (incoming.length === 1 && (!last || incoming[0]!.id > last.id)) {
      this.#messages = [...current, incoming[0]!];
      return;
    }
    const byId = new Map<number, Message>();
    for (const message of current) byId.set(message.id, message);
    for (const message of incoming) byId.set(message.id, message);
    this.#messages = [...byId.values()].sort((a, b) => a.id - b.id);
  }
}
