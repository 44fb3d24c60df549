import { SvelteSet } from 'svelte/reactivity';
import type { Grant, PermissionAnswer, PermissionRequest } from '@shared/contract.js';
import { DroverError } from '@shared/ipc/drover-error.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

export type GrantKind = Grant['kind'];

/** Why answering a request failed; kept with the request it was for. */
export interface AnswerFailure {
  requestId: string;
  message: string;
}

/**
 * The permission requests and grants of one session. A request waits until the person
 * answers it here, or until the service withdraws it (its turn ended); nothing here ever
 * resolves one on its own. `listPermissions` answers at start and on `load` (after a
 * reconnect); the `permissionRequested`, `permissionResolved` and `grantsChanged` events
 * keep both current in between.
 */
export class PermissionsState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #requests = $state.raw<readonly PermissionRequest[]>([]);
  #grants = $state.raw<readonly Grant[]>([]);
  #loaded = $state(false);
  #loadError = $state<string | null>(null);
  #answering = $state<string | null>(null);
  #answerFailure = $state.raw<AnswerFailure | null>(null);
  /** `kind:value` of the grant being revoked or promoted. */
  #grantBusy = $state<string | null>(null);
  #grantError = $state<string | null>(null);
  /** Values this view made permanent (they are in the allowlist now). */
  readonly #promoted = new SvelteSet<string>();
  readonly #pending = $derived([...this.#requests].sort(byAge));
  #loadSeq = 0;
  /** Events that arrived while a list request was on its way: they are newer than its answer. */
  #duringLoad: { requested: PermissionRequest[]; resolved: Set<string>; grants: readonly Grant[] | null } | null = null;
  #alive = false;

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  /** Waiting for the person's answer, oldest first. */
  get pending(): readonly PermissionRequest[] {
    return this.#pending;
  }

  /** The request to answer now: the oldest waiting. */
  get current(): PermissionRequest | null {
    return this.#pending[0] ?? null;
  }

  /** What this session may run without asking, besides the allowlist. */
  get grants(): readonly Grant[] {
    return this.#grants;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  get loadError(): string | null {
    return this.#loadError;
  }

  /** The id of the request whose answer is on its way. */
  get answering(): string | null {
    return this.#answering;
  }

  get answerFailure(): AnswerFailure | null {
    return this.#answerFailure;
  }

  /** Why the last revoke or promote failed. */
  get grantError(): string | null {
    return this.#grantError;
  }

  isGrantBusy(kind: GrantKind, value: string): boolean {
    return this.#grantBusy === grantKey(kind, value);
  }

  /** True once this view added the value to the allowlist. */
  isPromoted(value: string): boolean {
    return this.#promoted.has(value);
  }

  /** Follows this session's permission events and loads the lists; returns a function that stops. */
  start(): () => void {
    this.#alive = true;
    const offs = [
      this.#api.on('permissionRequested', ({ request }) => {
        if (request.sessionId !== this.#sessionId) return;
        this.#duringLoad?.requested.push(request);
        this.#add(request);
      }),
      this.#api.on('permissionResolved', ({ sessionId, requestId }) => {
        if (sessionId !== this.#sessionId) return;
        this.#duringLoad?.resolved.add(requestId);
        this.#remove(requestId);
      }),
      this.#api.on('grantsChanged', ({ sessionId, grants }) => {
        if (sessionId !== this.#sessionId) return;
        if (this.#duringLoad) this.#duringLoad.grants = grants;
        this.#grants = grants;
      }),
    ];
    void this.load();
    return () => {
      for (const off of offs) off();
      this.#alive = false;
      this.#loadSeq++;
      this.#duringLoad = null;
    };
  }

  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    const during = {
      requested: [] as PermissionRequest[],
      resolved: new Set<string>(),
      grants: null as readonly Grant[] | null,
    };
    this.#duringLoad = during;
    try {
      const { pending, grants } = await this.#api.listPermissions({ sessionId: this.#sessionId });
      if (seq !== this.#loadSeq) return;
      const byId = new Map(pending.map((request) => [request.id, request]));
      for (const request of during.requested) byId.set(request.id, request);
      for (const id of during.resolved) byId.delete(id);
      this.#requests = [...byId.values()];
      this.#grants = during.grants ?? grants;
      this.#loaded = true;
      this.#loadError = null;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#loadError = `Could not load the permission requests: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#loadSeq) this.#duringLoad = null;
    }
  }

  /** Answers a waiting request; true when the service took the answer. */
  async answer(requestId: string, answer: PermissionAnswer): Promise<boolean> {
    if (this.#answering !== null) return false;
    this.#answering = requestId;
    this.#answerFailure = null;
    try {
      const { grants } = await this.#api.answerPermission({ sessionId: this.#sessionId, requestId, answer });
      if (this.#alive) {
        this.#remove(requestId);
        this.#grants = grants;
      }
      return true;
    } catch (error) {
      if (!this.#alive) return false;
      // Answered elsewhere, or withdrawn as its turn ended: it is simply gone.
      if (error instanceof DroverError && error.code === 'not_found') this.#remove(requestId);
      else this.#answerFailure = { requestId, message: `Could not send the answer: ${errorMessage(error)}` };
      return false;
    } finally {
      this.#answering = null;
    }
  }

  /** Removes a grant of this session; true when it is gone. */
  async revoke(kind: GrantKind, value: string): Promise<boolean> {
    const done = await this.#onGrant(kind, value, 'Could not revoke', async () => {
      const { grants } = await this.#api.revokeGrant({ sessionId: this.#sessionId, kind, value });
      this.#grants = grants;
      return true;
    });
    return done ?? false;
  }

  /** Adds a grant to the permanent allowlist; answers the allowlist, or null when it failed. */
  promote(kind: GrantKind, value: string): Promise<readonly string[] | null> {
    return this.#onGrant(kind, value, 'Could not make it permanent', async () => {
      const { grants, allowlist } = await this.#api.promoteGrant({ sessionId: this.#sessionId, kind, value });
      this.#grants = grants;
      if (allowlist.includes(value)) this.#promoted.add(value);
      return allowlist;
    });
  }

  clearAnswerFailure(): void {
    this.#answerFailure = null;
  }

  clearGrantError(): void {
    this.#grantError = null;
  }

  async #onGrant<T>(kind: GrantKind, value: string, failure: string, run: () => Promise<T>): Promise<T | null> {
    if (this.#grantBusy !== null) return null;
    this.#grantBusy = grantKey(kind, value);
    this.#grantError = null;
    try {
      return await run();
    } catch (error) {
      this.#grantError = `${failure}: ${errorMessage(error)}`;
      return null;
    } finally {
      this.#grantBusy = null;
    }
  }

  #add(request: PermissionRequest): void {
    if (this.#requests.some((known) => known.id === request.id)) return;
    this.#requests = [...this.#requests, request];
  }

  #remove(requestId: string): void {
    if (!this.#requests.some((known) => known.id === requestId)) return;
    this.#requests = this.#requests.filter((known) => known.id !== requestId);
    if (this.#answerFailure?.requestId === requestId) this.#answerFailure = null;
  }
}

function grantKey(kind: GrantKind, value: string): string {
  return `${kind}:${value}`;
}

/** Oldest first; the order they arrived in when two share a time. */
function byAge(a: PermissionRequest, b: PermissionRequest): number {
  return Date.parse(a.createdAt) - Date.parse(b.createdAt);
}
