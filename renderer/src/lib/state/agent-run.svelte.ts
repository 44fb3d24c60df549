import type { AgentRun } from '@shared/schemas/subagent.js';
import { isSettled } from '@shared/domain/task-status.js';
import { DroverError } from '@shared/ipc/drover-error.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';
import { agentTranscript, type AgentTranscriptView } from '../agent-transcript.js';

/** An agent's run is fetched again at most this often while its transcript grows (about 4 times a second). */
export const AGENT_REFETCH_MS = 250;

/**
 * Coalesces "there is more" into fetches: at most one every `intervalMs` (measured from each
 * fetch's start), never two in flight, and a change that came while one was on its way or
 * waiting always leads to one more fetch after it, so the last change is never missed.
 */
export class RefetchThrottle {
  readonly #fetch: () => Promise<void>;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #inFlight = false;
  #dirty = false;
  #lastStart = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(fetch: () => Promise<void>, intervalMs: number, now: () => number = Date.now) {
    this.#fetch = fetch;
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Something changed: fetch now, or as soon as the interval and the fetch on its way allow. */
  request(): void {
    if (this.#stopped) return;
    if (this.#inFlight) {
      this.#dirty = true;
      return;
    }
    if (this.#timer) return; // the fetch already waiting reads this change too
    const wait = this.#lastStart + this.#intervalMs - this.#now();
    if (wait <= 0) void this.#run();
    else
      this.#timer = setTimeout(() => {
        this.#timer = null;
        void this.#run();
      }, wait);
  }

  /** No more fetches; one on its way finishes, and nothing follows it. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #run(): Promise<void> {
    if (this.#stopped) return;
    this.#inFlight = true;
    this.#dirty = false;
    this.#lastStart = this.#now();
    try {
      await this.#fetch();
    } catch {
      // The fetch reports its own failures; the next change tries again.
    } finally {
      this.#inFlight = false;
      if (this.#dirty) this.request();
    }
  }
}

/**
 * One agent task's run for its view: fetched when the view opens, again (throttled) on each
 * `taskOutput` event for it (its transcript grew) and when its row settles, so the result shows.
 */
export class AgentRunState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  readonly #taskId: string;
  readonly #throttle: RefetchThrottle;
  #run = $state.raw<AgentRun | null>(null);
  #error = $state<string | null>(null);
  #gone = $state(false);
  readonly #transcript = $derived.by((): AgentTranscriptView | null => {
    const run = this.#run;
    return run ? agentTranscript(run.events, run.status === 'running' || run.status === 'queued') : null;
  });
  #alive = false;

  constructor(api: DroverApi, sessionId: string, taskId: string, intervalMs = AGENT_REFETCH_MS) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#taskId = taskId;
    this.#throttle = new RefetchThrottle(() => this.#fetch(), intervalMs);
  }

  /** The run as last fetched; null before the first answer. */
  get run(): AgentRun | null {
    return this.#run;
  }

  get transcript(): AgentTranscriptView | null {
    return this.#transcript;
  }

  /** Why the last fetch failed; null once one succeeds. */
  get error(): string | null {
    return this.#error;
  }

  /** The service no longer knows the task (cleared). */
  get gone(): boolean {
    return this.#gone;
  }

  /** Fetches the run and follows it; returns a function that stops. */
  start(): () => void {
    this.#alive = true;
    const offs = [
      this.#api.on('taskOutput', ({ sessionId, taskId }) => {
        if (sessionId === this.#sessionId && taskId === this.#taskId) this.#throttle.request();
      }),
      this.#api.on('taskUpdated', ({ task }) => {
        if (task.sessionId === this.#sessionId && task.id === this.#taskId && isSettled(task.status))
          this.#throttle.request();
      }),
    ];
    this.#throttle.request();
    return () => {
      this.#alive = false;
      this.#throttle.stop();
      for (const off of offs) off();
    };
  }

  /** Fetches again (after a reconnect: events may have been missed meanwhile). */
  reload(): void {
    this.#throttle.request();
  }

  async #fetch(): Promise<void> {
    try {
      const run = await this.#api.getAgentRun({ sessionId: this.#sessionId, taskId: this.#taskId });
      if (!this.#alive) return;
      this.#run = run;
      this.#error = null;
    } catch (error) {
      if (!this.#alive) return;
      if (error instanceof DroverError && error.code === 'not_found') this.#gone = true;
      else this.#error = `Could not read the agent's transcript: ${errorMessage(error)}`;
    }
  }
}
