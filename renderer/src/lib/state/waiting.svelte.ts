import { SvelteMap } from 'svelte/reactivity';
import type { DroverApi } from '../api.js';

/**
 * How many commands wait for the person's answer in each session, so a session that is not
 * open can say it needs attention (its agent is blocked until someone answers).
 */
export class WaitingState {
  readonly #api: DroverApi;
  readonly #counts = new SvelteMap<string, number>();
  readonly #seen = new Set<string>();

  constructor(api: DroverApi) {
    this.#api = api;
  }

  count(sessionId: string): number {
    return this.#counts.get(sessionId) ?? 0;
  }

  start(): () => void {
    const offs = [
      this.#api.on('permissionRequested', ({ request }) => {
        if (this.#seen.has(request.id)) return;
        this.#seen.add(request.id);
        this.#counts.set(request.sessionId, this.count(request.sessionId) + 1);
      }),
      this.#api.on('permissionResolved', ({ sessionId, requestId }) => {
        if (!this.#seen.delete(requestId)) return;
        const next = this.count(sessionId) - 1;
        if (next > 0) this.#counts.set(sessionId, next);
        else this.#counts.delete(sessionId);
      }),
    ];
    void this.load();
    return () => offs.forEach((off) => off());
  }

  /** The service's counts replace what the events built (after a reconnect, say). */
  async load(): Promise<void> {
    try {
      const { waiting } = await this.#api.waitingPermissions();
      this.#counts.clear();
      this.#seen.clear();
      for (const { sessionId, requestId } of waiting) {
        this.#seen.add(requestId);
        this.#counts.set(sessionId, this.count(sessionId) + 1);
      }
    } catch {
      // Not fatal: the marks come back with the next event or reconnect.
    }
  }
}
