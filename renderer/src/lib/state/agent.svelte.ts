import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/**
 * The agent of one session: whether a turn is in flight, whether a model is connected,
 * and how the last turn ended. `agentStatus` answers at start (and on `load`, e.g. after
 * a reconnect); `turnChanged` events keep `busy` and `error` current in between.
 */
export class AgentState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #busy = $state(false);
  #connected = $state(false);
  #loaded = $state(false);
  #error = $state<string | null>(null);
  #cancelling = $state(false);
  #retrying = $state<{ retry: number; retries: number; reason: string } | null>(null);
  #retryRequested = $state(false);
  #actionError = $state<string | null>(null);
  #loadSeq = 0;
  /** Counts turn events, so an answer can tell whether one arrived while it was on its way. */
  #turnEvents = 0;
  /** A turn event arrived while a status request was on its way: the event is newer. */
  #eventDuringLoad = false;

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  /** A turn is in flight (a reply streams, or tools run for it). */
  get busy(): boolean {
    return this.#busy;
  }

  /** A model is configured. False until the first status answers. */
  get connected(): boolean {
    return this.#connected;
  }

  /** True once the first status has answered. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** Why the last turn failed; null when it ended well or a new one started. */
  get error(): string | null {
    return this.#error;
  }

  /** The turn in flight is retrying a failed model call: which retry, of how many, and why. */
  get retrying(): { retry: number; retries: number; reason: string } | null {
    return this.#retrying;
  }

  /** Retry was pressed and its request is on its way. */
  get retryRequested(): boolean {
    return this.#retryRequested;
  }

  get cancelling(): boolean {
    return this.#cancelling;
  }

  /** Why the last status load or cancel failed; null after a success. */
  get actionError(): string | null {
    return this.#actionError;
  }

  /** Follows this session's turns and loads the status; returns a function that stops. */
  start(): () => void {
    const off = this.#api.on('turnChanged', ({ sessionId, busy, error }) => {
      if (sessionId !== this.#sessionId) return;
      this.#busy = busy;
      this.#error = busy ? null : error;
      this.#retrying = null;
      this.#turnEvents++;
      this.#eventDuringLoad = true;
      // A turn ran, so a model is connected (it may have been connected meanwhile elsewhere).
      if (busy) this.#connected = true;
    });
    const offRetry = this.#api.on('turnRetrying', ({ sessionId, retry, retries, reason }) => {
      if (sessionId === this.#sessionId) this.#retrying = { retry, retries, reason };
    });
    void this.load();
    return () => {
      off();
      offRetry();
      this.#loadSeq++;
    };
  }

  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#eventDuringLoad = false;
    try {
      const status = await this.#api.agentStatus({ sessionId: this.#sessionId });
      if (seq !== this.#loadSeq) return;
      if (!this.#eventDuringLoad) {
        this.#busy = status.busy;
        this.#error = status.busy ? null : status.error;
      }
      this.#connected = status.connected;
      this.#loaded = true;
      this.#actionError = null;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#actionError = `Could not read the agent's status: ${errorMessage(error)}`;
    }
  }

  /** Cancels the turn in flight; background tasks keep running. True when one was cancelled. */
  async cancel(): Promise<boolean> {
    if (this.#cancelling || !this.#busy) return false;
    this.#cancelling = true;
    this.#actionError = null;
    try {
      const { cancelled } = await this.#api.cancelTurn({ sessionId: this.#sessionId });
      // Nothing was in flight any more: the turn ended as the request went.
      if (!cancelled) this.#busy = false;
      return cancelled;
    } catch (error) {
      this.#actionError = `Could not stop the reply: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#cancelling = false;
    }
  }

  /** Runs the failed last turn again. At most one request at a time; the turn's events do the rest. */
  async retry(): Promise<void> {
    if (this.#retryRequested || this.#busy || this.#error === null) return;
    this.#retryRequested = true;
    this.#actionError = null;
    const events = this.#turnEvents;
    try {
      await this.#api.retryTurn({ sessionId: this.#sessionId });
      // The turn's own events may have come first (it may even have failed again): then they tell.
      if (this.#turnEvents === events) this.#error = null;
    } catch (error) {
      this.#actionError = `Could not retry: ${errorMessage(error)}`;
    } finally {
      this.#retryRequested = false;
    }
  }

  clearActionError(): void {
    this.#actionError = null;
  }
}
