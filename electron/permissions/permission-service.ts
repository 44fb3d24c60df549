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

/** On allow, `sandboxed` says whether the command runs inside the session's sandbox. */
export type Outcome =
  { allowed: true; reason: string; sandboxed?: boolean } | { allowed: false; reason: string; rejected?: boolean };

/** What the gate asks of the sandbox: whether it is in force for the model's commands, and its settings. */
export interface GateSandbox {
  /** The model's commands run in the sandbox now (on in the settings, available here). */
  applies(): boolean;
  /** Setting "Run sandboxed commands without asking". */
  runWithoutAsking(): boolean;
}

/** How long a connection waits on the person before it is refused. */
export const NETWORK_ASK_MS = 5 * 60_000;

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
  /** The session's sandbox; absent, no command runs in one. */
  sandbox?: GateSandbox;
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
      /** The model asked to run it outside the sandbox: always asked, once or reject. */
      outside?: boolean | undefined;
      /**
       * The caller runs the command through the pool, which puts it in the sandbox when the answer
       * says so (run_command, monitor_command). Anything else the gate is asked about (kill_shell's
       * `kill PID`) is done by Drover itself, never sandboxed, so the sandbox never waves it through.
       */
      sandboxable?: boolean | undefined;
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
    const inForce = request.sandboxable === true && (this.#deps.sandbox?.applies() ?? false);
    const outside = inForce && request.outside === true;
    const sandboxed = inForce && !outside;
    if (decision.decision === 'allow' && !outside) return { allowed: true, reason: decision.reason, sandboxed };
    // A command the sandbox makes harmless runs without asking, where the person chose that (never in plan mode).
    if (sandboxed && !planMode && this.#deps.sandbox!.runWithoutAsking())
      return { allowed: true, reason: 'runs in the sandbox, which the settings let run without asking', sandboxed };
    if (signal.aborted) return { allowed: false, reason: 'the turn was cancelled' };

    const pending: PermissionRequest = {
      id: randomId(10),
      sessionId: request.sessionId,
      command: request.command,
      visibleCommand: visibleCommand(request.command),
      cwd: request.cwd,
      background: request.background,
      programGrant: planMode || outside ? null : programGrantFor(request.command, COMMAND_SHELL),
      planMode,
      reason: outside
        ? `it asks to run outside the sandbox${decision.decision === 'ask' ? `, and ${decision.reason}` : ''}`
        : decision.reason,
      createdAt: new Date((this.#deps.now ?? Date.now)()).toISOString(),
      agent: request.agent ?? null,
      sandbox: outside ? 'outside' : sandboxed ? 'inside' : 'none',
      network: null,
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
      reason: outside
        ? 'allowed once outside the sandbox by the person'
        : answer === 'allow'
          ? 'allowed once by the person'
          : 'allowed always by the person',
      sandboxed,
    };
  }

  /**
   * A sandboxed command of this session tried to reach a host its policy does not list: the person
   * answers this connection once, the host for the session, or no. Nobody answering within
   * NETWORK_ASK_MS is a no.
   */
  async askNetwork(sessionId: string, host: string, port: number): Promise<'once' | 'host' | 'reject'> {
    const target = port ? `${host}:${port}` : host;
    const pending: PermissionRequest = {
      id: randomId(10),
      sessionId,
      command: `connect to ${target}`,
      visibleCommand: visibleCommand(`connect to ${target}`),
      cwd: this.#deps.workspace?.() ?? '',
      background: true,
      programGrant: null,
      planMode: false,
      reason: `a sandboxed command wants to connect to ${target}, which the sandbox does not allow`,
      createdAt: new Date((this.#deps.now ?? Date.now)()).toISOString(),
      agent: null,
      sandbox: 'inside',
      network: { host, port },
    };
    const answer = await new Promise<PermissionAnswer | 'withdrawn'>((resolve) => {
      this.#pending.set(pending.id, { request: pending, resolve });
      setTimeout(() => this.#resolve(pending.id, 'withdrawn'), NETWORK_ASK_MS).unref();
      this.#deps.bus.emit('permissionRequested', { request: pending });
    });
    return answer === 'allow' ? 'once' : answer === 'allow_host' ? 'host' : 'reject';
  }

  answer(sessionId: string, requestId: string, answer: PermissionAnswer): { answered: boolean; grants: Grant[] } {
    const pending = this.#pending.get(requestId);
    if (!pending || pending.request.sessionId !== sessionId) {
      throw new DroverError('not_found', `No pending permission request "${requestId}" in this session`, {
        path: 'requestId',
      });
    }
    const { network, sandbox } = pending.request;
    if (network ? answer === 'allow_always' || answer === 'allow_program' : answer === 'allow_host')
      throw new DroverError(
        'invalid_input',
        network
          ? 'A connection is allowed once (allow), for its host in this session (allow_host), or rejected'
          : 'allow_host answers a sandboxed connection, not a command',
        { path: 'answer' },
      );
    if (sandbox === 'outside' && (answer === 'allow_always' || answer === 'allow_program'))
      throw new DroverError('invalid_input', 'A command leaving the sandbox is allowed once, or rejected', {
        path: 'answer',
      });
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
