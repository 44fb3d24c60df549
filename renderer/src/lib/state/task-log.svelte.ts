import { isSettled } from '@shared/domain/task-status.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** Where the raw log goes: a terminal. */
export interface LogSink {
  write(data: string): void;
  reset(): void;
}

/**
 * Follows one task's raw log for a terminal view: the last 256 KiB first, then, on each
 * `taskOutput` event for it, the bytes from where the last read ended (one read in flight
 * at a most; events during it make one more). Also types into the task.
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
  /** Where the bytes the terminal shows begin in the log (0 unless the log was longer than one read). */
  #shownFrom = $state(0);
  /** Bytes of the log read so far; null before the first read answers. */
  #readTo = $state<number | null>(null);

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

  /** The byte where the terminal's text begins: a search match before it is not in the terminal. */
  get shownFrom(): number {
    return this.#shownFrom;
  }

  /** The log is known to hold no output yet (false until the first read answers). */
  get empty(): boolean {
    return this.#readTo === 0;
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
      if (from === null) {
        this.#truncated = chunk.truncated;
        this.#shownFrom = chunk.fromByte;
      }
      if (chunk.data) this.#sink.write(chunk.data);
      this.#toByte = chunk.toByte;
      this.#readTo = chunk.toByte;
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
