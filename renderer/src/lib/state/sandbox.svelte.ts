import type { SessionSandbox } from '@shared/schemas/sandbox.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/**
 * One session's sandbox (issue 19): whether its commands run sandboxed, and the hosts the person
 * allowed for this session. `getSandbox` answers at start and on `load` (after a reconnect); the
 * `sandboxChanged` event keeps it current in between (a host allowed from the permission panel).
 */
export class SessionSandboxState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #sandbox = $state.raw<SessionSandbox | null>(null);
  #loadError = $state<string | null>(null);
  #busy = $state(false);
  #error = $state<string | null>(null);
  #loadSeq = 0;
  /** Bumped by each event, so a load that was on its way when one came does not put older hosts back. */
  #eventSeq = 0;

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  /** Null until the first answer. */
  get sandbox(): SessionSandbox | null {
    return this.#sandbox;
  }

  get loadError(): string | null {
    return this.#loadError;
  }

  /** A host is being added or removed. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Why the last add or remove failed, in words (the server's message names the field). */
  get error(): string | null {
    return this.#error;
  }

  clearError(): void {
    this.#error = null;
  }

  start(): () => void {
    const off = this.#api.on('sandboxChanged', ({ sandbox }) => {
      if (sandbox.sessionId !== this.#sessionId) return;
      this.#eventSeq++;
      this.#sandbox = sandbox;
    });
    void this.load();
    return () => {
      off();
      this.#loadSeq++;
    };
  }

  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    const events = this.#eventSeq;
    try {
      const sandbox = await this.#api.getSandbox({ sessionId: this.#sessionId });
      if (seq !== this.#loadSeq || events !== this.#eventSeq) return;
      this.#sandbox = sandbox;
      this.#loadError = null;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#loadError = `Could not load the sandbox: ${errorMessage(error)}`;
    }
  }

  /** Lets this session's sandboxed commands reach a host; true when the server took it. */
  allowHost(host: string): Promise<boolean> {
    return this.#change(() => this.#api.allowSandboxHost({ sessionId: this.#sessionId, host }), 'Not added');
  }

  removeHost(host: string): Promise<boolean> {
    return this.#change(() => this.#api.removeSandboxHost({ sessionId: this.#sessionId, host }), 'Not removed');
  }

  async #change(run: () => Promise<SessionSandbox>, failure: string): Promise<boolean> {
    if (this.#busy) return false;
    this.#busy = true;
    this.#error = null;
    try {
      const sandbox = await run();
      this.#eventSeq++;
      this.#sandbox = sandbox;
      return true;
    } catch (error) {
      this.#error = `${failure}: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#busy = false;
    }
  }
}
