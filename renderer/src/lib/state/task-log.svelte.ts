import { isSettled } from '@shared/schemas/task.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** Where the raw log goes: a terminal. */
export interface LogSink {
  write(data: string): void;
  reset(): void;
}

export interface LogMatch {
  line: number;
  text: string;
}

/**
 * Follows one task's raw log for a terminal view: the last 256 KiB first, then, on each
 * `taskOutput` event for it, the bytes from where the last read ended (one read in flight
 * at a most; events during it make one more). Also types into the task and searches its log.
 */
export class TaskLogState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  readonly #taskId: string;
  #sink: LogSink | null = null;
  #toByte: number | null = null;
  #inFlight = false;
  #dirty = false;
  #seq = 0;
  #error = $state<string | null>(null);
  #truncated = $state(false);
  #writeError = $state<string | null>(null);
  #query = $state('');
  #matches = $state.raw<readonly LogMatch[]>([]);
  #matchesTruncated = $state(false);
  #searching = $state(false);
  #searchError = $state<string | null>(null);
  #searched = $state(false);
  #searchSeq = 0;

  constructor(api: DroverApi, sessionId: string, taskId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#taskId = taskId;
  }

  get error(): string | null {
    return this.#error;
  }

  /** Older output exists before what the terminal shows. */
  get truncated(): boolean {
    return this.#truncated;
  }

  get writeError(): string | null {
    return this.#writeError;
  }

  get query(): string {
    return this.#query;
  }

  get matches(): readonly LogMatch[] {
    return this.#matches;
  }

  get matchesTruncated(): boolean {
    return this.#matchesTruncated;
  }

  get searching(): boolean {
    return this.#searching;
  }

  get searchError(): string | null {
    return this.#searchError;
  }

  /** A search has answered for the current query. */
  get searched(): boolean {
    return this.#searched;
  }

  /** Feeds `sink` from the log and follows it; returns a function that stops. */
  start(sink: LogSink): () => void {
    this.#sink = sink;
    const offs = [
      this.#api.on('taskOutput', ({ sessionId, taskId }) => {
        if (sessionId === this.#sessionId && taskId === this.#taskId) this.#more();
      }),
      this.#api.on('taskUpdated', ({ task }) => {
        if (task.sessionId === this.#sessionId && task.id === this.#taskId && isSettled(task.status)) this.#more();
      }),
    ];
    this.reload();
    return () => {
      for (const off of offs) off();
      this.#sink = null;
      this.#seq++;
    };
  }

  /** Starts over from the last 256 KiB (after a reconnect). */
  reload(): void {
    this.#toByte = null;
    this.#inFlight = false;
    this.#dirty = false;
    this.#sink?.reset();
    void this.#read();
  }

  /** Types into the task (its terminal's input). */
  async write(data: string): Promise<void> {
    try {
      await this.#api.writeTask({ sessionId: this.#sessionId, taskId: this.#taskId, data });
      this.#writeError = null;
    } catch (error) {
      this.#writeError = `Could not type into the task: ${errorMessage(error)}`;
    }
  }

  /** Searches the whole log on disk; an empty query clears the results. */
  async search(query: string): Promise<void> {
    const seq = ++this.#searchSeq;
    this.#query = query;
    this.#searchError = null;
    if (query.trim() === '') {
      this.#matches = [];
      this.#searched = false;
      this.#searching = false;
      return;
    }
    this.#searching = true;
    try {
      const result = await this.#api.searchTaskLog({
        sessionId: this.#sessionId,
        taskId: this.#taskId,
        query,
        maxMatches: 500,
      });
      if (seq !== this.#searchSeq) return;
      this.#matches = result.matches;
      this.#matchesTruncated = result.truncated;
      this.#searched = true;
    } catch (error) {
      if (seq !== this.#searchSeq) return;
      this.#searchError = `Could not search: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#searchSeq) this.#searching = false;
    }
  }

  #more(): void {
    if (this.#inFlight) {
      this.#dirty = true;
      return;
    }
    void this.#read();
  }

  async #read(): Promise<void> {
    const seq = this.#seq;
    this.#inFlight = true;
    this.#dirty = false;
    try {
      const from = this.#toByte;
      const chunk = await this.#api.readTaskLog({
        sessionId: this.#sessionId,
        taskId: this.#taskId,
        ...(from === null ? {} : { fromByte: from }),
      });
      if (seq !== this.#seq || !this.#sink) return;
      if (from === null) this.#truncated = chunk.truncated;
      if (chunk.data) this.#sink.write(chunk.data);
      this.#toByte = chunk.toByte;
      this.#error = null;
    } catch (error) {
      if (seq !== this.#seq) return;
      this.#error = `Could not read the output: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#seq) {
        this.#inFlight = false;
        if (this.#dirty && this.#sink) void this.#read();
      }
    }
  }
}
