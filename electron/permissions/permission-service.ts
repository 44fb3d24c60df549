import { DroverError } from '../../shared/ipc/errors.js';
import type { DroverContract } from '../../shared/contract.js';
import type { Grant, PermissionAnswer, PermissionRequest } from '../../shared/schemas/permission.js';
import type { EventBus } from '../core/event-bus.js';
import { randomId } from '../core/ids.js';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { evaluateCommand, programGrantFor, visibleCommand, type GatePolicy } from './gate.js';
import { evaluateReadOnly } from './read-only.js';

/** The shell commands run under here: the gate reads words its way. */
const COMMAND_SHELL: NonNullable<GatePolicy['shell']> = process.platform === 'win32' ? 'cmd' : 'posix';

export type Outcome = { allowed: true; reason: string } | { allowed: false; reason: string; rejected?: boolean };

interface Pending {
  request: PermissionRequest;
  resolve: (answer: PermissionAnswer | 'withdrawn') => void;
}

interface SessionGrants {
  exact: Set<string>;
  program: Set<string>;
}

export interface PermissionDeps {
  bus: EventBus<DroverContract>;
  allowlist: () => readonly string[];
  /** Adds an entry to the permanent allowlist in settings. */
  addToAllowlist: (entry: string) => readonly string[];
  /** Resolves once the shell grammar is loaded (until then nothing could be judged). */
  ready: Promise<void>;
  /** The session's working folder: grants and allowlist entries cover only commands run inside it. */
  workspace?: () => string;
  /** Whether the session is in plan mode: then only read-only commands run without asking, grants aside. */
  planMode?: (sessionId: string) => boolean;
  now?: () => number;
}

/**
 * Every command the model runs passes here. Grants belong to a chat session while the app
 * runs and are not restored after a restart. A pending request is only ever resolved by
 * the person's answer, or withdrawn when its turn ends: never into an implicit allow.
 */
export class PermissionService {
  readonly #deps: PermissionDeps;
  readonly #grants = new Map<string, SessionGrants>();
  readonly #pending = new Map<string, Pending>();

  constructor(deps: PermissionDeps) {
    this.#deps = deps;
  }

  /** Allows at once when a rule covers the command; otherwise asks the person and waits. */
  async check(
    request: {
      sessionId: string;
      command: string;
      cwd: string;
      background: boolean;
      /** A background sub-agent asks: the person is shown which. */
      agent?: { taskId: string; name: string } | undefined;
      /** Judge as in plan mode (read-only commands run, the rest ask): a read-only agent's commands. */
      readOnly?: boolean | undefined;
    },
    signal: AbortSignal,
    onAsk?: () => void,
  ): Promise<Outcome> {
    await this.#deps.ready;
    const grants = this.#session(request.sessionId);
    const workspace = this.#deps.workspace?.();
    const place = { workspace: workspace === undefined ? undefined : realPath(workspace), shell: COMMAND_SHELL };
    const cwd = realPath(request.cwd);
    const planMode = request.readOnly === true || (this.#deps.planMode?.(request.sessionId) ?? false);
    const decision = planMode
      ? evaluateReadOnly(request.command, place, cwd)
      : evaluateCommand(
          request.command,
          {
            allowlist: this.#deps.allowlist(),
            exactGrants: [...grants.exact],
            programGrants: [...grants.program],
            ...place,
          },
          cwd,
        );
    if (decision.decision === 'allow') return { allowed: true, reason: decision.reason };
    if (signal.aborted) return { allowed: false, reason: 'the turn was cancelled' };

    const pending: PermissionRequest = {
      id: randomId(10),
      sessionId: request.sessionId,
      command: request.command,
      visibleCommand: visibleCommand(request.command),
      cwd: request.cwd,
      background: request.background,
      programGrant: planMode ? null : programGrantFor(request.command, COMMAND_SHELL),
      planMode,
      reason: decision.reason,
      createdAt: new Date((this.#deps.now ?? Date.now)()).toISOString(),
      agent: request.agent ?? null,
    };
    onAsk?.();
    const answer = await new Promise<PermissionAnswer | 'withdrawn'>((resolve) => {
      this.#pending.set(pending.id, { request: pending, resolve });
      const withdraw = () => this.#resolve(pending.id, 'withdrawn');
      signal.addEventListener('abort', withdraw, { once: true });
      this.#deps.bus.emit('permissionRequested', { request: pending });
    });
    if (answer === 'withdrawn') return { allowed: false, reason: 'the turn ended before the person answered' };
    if (answer === 'reject') return { allowed: false, reason: 'rejected by the person', rejected: true };
    return {
      allowed: true,
      reason: answer === 'allow' ? 'allowed once by the person' : 'allowed always by the person',
    };
  }

  answer(sessionId: string, requestId: string, answer: PermissionAnswer): { answered: boolean; grants: Grant[] } {
    const pending = this.#pending.get(requestId);
    if (!pending || pending.request.sessionId !== sessionId) {
      throw new DroverError('not_found', `No pending permission request "${requestId}" in this session`, {
        path: 'requestId',
      });
    }
    if (pending.request.planMode && (answer === 'allow_always' || answer === 'allow_program'))
      throw new DroverError(
        'invalid_input',
        'The session is in plan mode, where grants do not apply: allow the command once, or reject it',
        { path: 'answer' },
      );
    const grants = this.#session(sessionId);
    if (answer === 'allow_always') grants.exact.add(pending.request.command);
    if (answer === 'allow_program') {
      const entry = pending.request.programGrant;
      if (!entry)
        throw new DroverError('invalid_input', 'Always allow <program> is not offered for this command', {
          path: 'answer',
        });
      grants.program.add(entry);
    }
    this.#resolve(requestId, answer);
    if (answer === 'allow_always' || answer === 'allow_program') this.#announceGrants(sessionId);
    return { answered: true, grants: this.grants(sessionId) };
  }

  /** Every waiting request, in any session, for a mark in the session list. */
  allPending(): { sessionId: string; requestId: string }[] {
    return [...this.#pending.values()].map(({ request }) => ({ sessionId: request.sessionId, requestId: request.id }));
  }

  pending(sessionId: string): PermissionRequest[] {
    return [...this.#pending.values()].filter((p) => p.request.sessionId === sessionId).map((p) => p.request);
  }

  grants(sessionId: string): Grant[] {
    const grants = this.#session(sessionId);
    return [
      ...[...grants.program].map((value) => ({
        kind: 'program' as const,
        value,
        covers: `${value} with operands, and options known to be safe for it (no pipes or redirects), in the working folder`,
      })),
      ...[...grants.exact].map((value) => ({
        kind: 'exact' as const,
        value,
        covers: 'exactly this command, in the working folder',
      })),
    ];
  }

  revoke(sessionId: string, kind: Grant['kind'], value: string): Grant[] {
    const removed = this.#session(sessionId)[kind].delete(value);
    if (!removed) throw new DroverError('not_found', `No ${kind} grant "${value}" in this session`, { path: 'value' });
    this.#announceGrants(sessionId);
    return this.grants(sessionId);
  }

  promote(sessionId: string, kind: Grant['kind'], value: string): { grants: Grant[]; allowlist: string[] } {
    if (!this.#session(sessionId)[kind].has(value))
      throw new DroverError('not_found', `No ${kind} grant "${value}" in this session`, { path: 'value' });
    const allowlist = [...this.#deps.addToAllowlist(value)];
    return { grants: this.grants(sessionId), allowlist };
  }

  /** A deleted session's grants and requests go with it. */
  forget(sessionId: string): void {
    for (const request of this.pending(sessionId)) this.#resolve(request.id, 'withdrawn');
    this.#grants.delete(sessionId);
  }

  #resolve(requestId: string, answer: PermissionAnswer | 'withdrawn'): void {
    const pending = this.#pending.get(requestId);
    if (!pending) return;
    this.#pending.delete(requestId);
    pending.resolve(answer);
    this.#deps.bus.emit('permissionResolved', { sessionId: pending.request.sessionId, requestId, answer });
  }

  #announceGrants(sessionId: string): void {
    this.#deps.bus.emit('grantsChanged', { sessionId, grants: this.grants(sessionId) });
  }

  #session(sessionId: string): SessionGrants {
    let grants = this.#grants.get(sessionId);
    if (!grants) {
      grants = { exact: new Set(), program: new Set() };
      this.#grants.set(sessionId, grants);
    }
    return grants;
  }
}

/** Symbolic links resolved, so `..` and links cannot carry a command out of the working folder unseen. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
