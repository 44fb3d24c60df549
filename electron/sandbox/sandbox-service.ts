import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { SandboxPolicy, SandboxRefusal, SandboxStatus, SessionSandbox } from '../../shared/schemas/sandbox.js';
import type { SandboxWrapper } from '../pool/command-runner.js';
import { spawnSync } from 'node:child_process';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { SessionRuntime, type RuntimeConfig, type RuntimeHooks } from './sandbox-runtime.js';

/**
 * What runs first inside the sandbox: the task's own shell with its command, both handed over in
 * the environment (nothing is interpolated into a script). On the way, every connection is sent
 * through the session's proxy, loopback too, so a server on this machine is reached only when its
 * address is allowed, and a refused one is named on the task's row.
 */
export const SANDBOX_ENTRY_SCRIPT =
  'c=$DROVER_SANDBOX_COMMAND s=$DROVER_SANDBOX_SHELL; unset DROVER_SANDBOX_COMMAND DROVER_SANDBOX_SHELL; ' +
  'export NO_PROXY= no_proxy= TMPDIR="$DROVER_SANDBOX_TMPDIR"; unset DROVER_SANDBOX_TMPDIR; ' +
  // The library starts the sandbox's end of the proxy (a listener on port 3128, 0C38 in
  // /proc/net/tcp) in the background just before this: a command that connects at once would
  // find nobody there, so this waits for it to listen (a few milliseconds; at most about 2 s).
  'case $HTTP_PROXY in *:3128*) i=0; while [ $i -lt 400 ] && ! grep -q ":0C38 00000000:0000 0A" /proc/net/tcp 2>/dev/null; ' +
  'do sleep 0.005; i=$((i+1)); done;; esac; ' +
  'exec "$s" -c "$c"';

/** The person's answer to a connection the policy does not allow. */
export type NetworkAnswer = 'once' | 'host' | 'reject';

export interface SandboxServiceDeps {
  /** The policy in force (settings.json's `sandbox` section over the defaults); read at each use. */
  policy: () => SandboxPolicy;
  /** Drover's data folder: no sandboxed command reads or writes it. */
  dataDir: string;
  /**
   * A folder of this run's own in the temp folder, for the library's sockets (one subfolder per
   * session): sandboxed commands may write the temp folder, but never this.
   */
  runDir: string;
  /** The session's working folder: sandboxed commands may write here. */
  workspace: () => string;
  /** Asks the person about a connection (resolves with their answer, or 'reject' when nobody answers). */
  askNetwork: (sessionId: string, host: string, port: number) => Promise<NetworkAnswer>;
  /** The sandbox refused a task something: its row says so. */
  refused: (sessionId: string, taskId: string, refusal: SandboxRefusal) => void;
  /** A session's own hosts changed (the page shows them). */
  hostsChanged: (sessionId: string) => void;
  /** 'off': no sandbox on this run (tests of everything else); 'auto': as this machine allows. */
  mode?: 'auto' | 'off';
  home?: string | undefined;
  log: (message: string) => void;
}

/** What this platform offers, checked once: bubblewrap and socat on Linux, sandbox-exec on macOS. */
export function probeSandbox(): SandboxStatus {
  const platform = process.platform;
  if (platform !== 'linux' && platform !== 'darwin')
    return { available: false, platform, detail: `no sandbox is available on ${platform}` };
  try {
    const check = SandboxManager.checkDependencies();
    if (check.errors.length === 0 && platform === 'linux') {
      // The library's check does not try the namespaces themselves (a distribution may forbid
      // unprivileged user namespaces): one real, empty sandbox settles it.
      const tried = spawnSync(
        'bwrap',
        [
          '--ro-bind',
          '/',
          '/',
          '--dev',
          '/dev',
          '--proc',
          '/proc',
          '--unshare-user',
          '--unshare-pid',
          '--unshare-net',
          'true',
        ],
        { timeout: 5000, encoding: 'utf8' },
      );
      if (tried.status !== 0)
        return {
          available: false,
          platform,
          detail: `bubblewrap cannot make a sandbox here (${(tried.stderr || tried.error?.message || `exit ${tried.status}`).trim()}); user namespaces may be turned off`,
        };
    }
    if (check.errors.length > 0)
      return {
        available: false,
        platform,
        detail:
          platform === 'linux'
            ? `the sandbox needs bubblewrap and socat (${check.errors.join('; ')}); install them (Debian/Ubuntu: apt install bubblewrap socat)`
            : `the sandbox cannot start here: ${check.errors.join('; ')}`,
      };
    const reduced = check.warnings.length > 0 ? ` (reduced: ${check.warnings.join('; ')})` : '';
    return {
      available: true,
      platform,
      detail:
        (platform === 'linux'
          ? "bubblewrap (its own mount, process, user and network namespaces), network through Drover's proxy"
          : "sandbox-exec (a Seatbelt profile), network through Drover's proxy") + reduced,
    };
  } catch (error) {
    return {
      available: false,
      platform,
      detail: `the sandbox library could not be loaded: ${(error as Error).message}`,
    };
  }
}

/** Parses one refusal line of the library ("deny openat /tmp/x", "deny network-outbound host:443 (reason)"). */
export function refusalOf(line: string, at: Date): SandboxRefusal | null {
  const network = /^deny network-outbound (\S+)(?: \((.*)\))?$/.exec(line);
  if (network) return { kind: 'host', target: network[1]!, detail: network[2] ?? 'blocked', at: at.toISOString() };
  const file = /^deny (\S+) (\/.*)$/.exec(line);
  // Devices and the process's own files are the sandbox's business (a terminal's /dev/console), not the person's.
  if (file && /^\/(dev|proc|sys)\//.test(file[2]!)) return null;
  if (file) return { kind: 'path', target: file[2]!, detail: file[1]!, at: at.toISOString() };
  return null;
}

/**
 * The sandbox of every session (issue 19): whether a command runs inside, the library's runtime
 * per session (a worker each, so one session's approvals never reach another), the hosts the
 * person approved for a session, and what each sandbox refused.
 */
export class SandboxService implements SandboxWrapper {
  readonly #deps: SandboxServiceDeps;
  readonly #runtimes = new Map<string, { runtime: SessionRuntime; config: string }>();
  readonly #hosts = new Map<string, Set<string>>();
  readonly #told = new Set<string>();
  readonly #probe: () => SandboxStatus;
  #checked: SandboxStatus | null = null;
  #bridge: string | null | undefined;

  /**
   * `probe` says what this machine offers (probeSandbox: it runs bubblewrap once); it is asked on
   * first need, not while Drover starts.
   */
  constructor(deps: SandboxServiceDeps, probe: () => SandboxStatus) {
    this.#deps = deps;
    this.#probe = probe;
  }

  get status(): SandboxStatus {
    return (this.#checked ??= this.#check());
  }

  #check(): SandboxStatus {
    if (this.#deps.mode === 'off')
      return { available: false, platform: process.platform, detail: 'the sandbox was turned off for this run' };
    const status = this.#probe();
    if (!status.available || !insideDataFolder(this.#deps.dataDir, this.#deps.workspace())) return status;
    return {
      ...status,
      available: false,
      detail:
        "the working folder is inside Drover's data folder, which sandboxed commands may not touch; choose another working folder",
    };
  }

  /** Whether a command of `who` in this session runs in the sandbox now. */
  applies(who: 'model' | 'operator'): boolean {
    const policy = this.#deps.policy();
    return this.status.available && policy.enabled && (who === 'model' || policy.operatorLines);
  }

  /** The sandbox is on in the settings but this machine has none: said once per session (null after). */
  unavailableNotice(sessionId: string): string | null {
    // Turned off for this run on purpose (DROVER_SANDBOX=off): nothing to tell.
    if (this.#deps.mode === 'off' || this.status.available || !this.#deps.policy().enabled) return null;
    if (this.#told.has(sessionId)) return null;
    this.#told.add(sessionId);
    return `Commands in this session run without a sandbox: ${this.status.detail}. The permission gate alone decides what runs.`;
  }

  view(sessionId: string): SessionSandbox {
    return {
      sessionId,
      policy: this.#deps.policy(),
      hosts: [...(this.#hosts.get(sessionId) ?? [])],
      status: this.status,
      active: this.applies('model'),
    };
  }

  /** Allows a host for this session (the person's "Allow this host for the session", or the session's settings). */
  allowHost(sessionId: string, host: string): void {
    const hosts = this.#hosts.get(sessionId) ?? new Set<string>();
    if (hosts.has(host)) return;
    hosts.add(host);
    this.#hosts.set(sessionId, hosts);
    this.#refresh(sessionId);
    this.#deps.hostsChanged(sessionId);
  }

  removeHost(sessionId: string, host: string): boolean {
    const removed = this.#hosts.get(sessionId)?.delete(host) ?? false;
    if (removed) {
      this.#refresh(sessionId);
      this.#deps.hostsChanged(sessionId);
    }
    return removed;
  }

  /** The policy changed: every session's sandbox takes it (network lists at once; paths from the next command). */
  policyChanged(): void {
    for (const sessionId of this.#runtimes.keys()) this.#refresh(sessionId);
  }

  async wrap(request: {
    sessionId: string;
    taskId: string;
    command: string;
    shell: string;
    cwd: string;
  }): Promise<{ file: string; args: string[]; env: Record<string, string> }> {
    if (!this.status.available) throw new Error(this.status.detail);
    const runtime = await this.#runtime(request.sessionId);
    // Paths are read afresh for each command (the data folder's entries may have grown since).
    this.#refresh(request.sessionId);
    const { argv, env } = await runtime.wrap(
      request.taskId,
      SANDBOX_ENTRY_SCRIPT,
      request.command,
      '/bin/sh',
      request.cwd,
    );
    const [file, ...args] = argv;
    if (!file) throw new Error('the sandbox gave no program to run');
    return {
      file,
      args,
      env: {
        ...env,
        DROVER_SANDBOX_COMMAND: request.command,
        DROVER_SANDBOX_SHELL: request.shell,
        // The system temp folder, which the policy lets sandboxed commands write (the library's own is not made here).
        DROVER_SANDBOX_TMPDIR: tmpdir(),
      },
    };
  }

  /** A deleted session's sandbox and approvals go with it. */
  async forget(sessionId: string): Promise<void> {
    this.#hosts.delete(sessionId);
    this.#told.delete(sessionId);
    const held = this.#runtimes.get(sessionId);
    this.#runtimes.delete(sessionId);
    await held?.runtime.close();
  }

  async dispose(): Promise<void> {
    const all = [...this.#runtimes.values()];
    this.#runtimes.clear();
    await Promise.all(all.map(({ runtime }) => runtime.close()));
    rmSync(this.#deps.runDir, { recursive: true, force: true });
  }

  async #runtime(sessionId: string): Promise<SessionRuntime> {
    let held = this.#runtimes.get(sessionId);
    // A worker that died (a crash, a bridge that failed) is replaced: the session keeps its hosts.
    if (held?.runtime.dead) {
      this.#runtimes.delete(sessionId);
      void held.runtime.close();
      held = undefined;
    }
    if (!held) {
      const config = this.#config(sessionId);
      const hooks: RuntimeHooks = {
        ask: async (host, port) => {
          const answer = await this.#deps.askNetwork(sessionId, host, port);
          if (answer === 'host') this.allowHost(sessionId, port ? `${host}:${port}` : host);
          return answer !== 'reject';
        },
        violation: (taskId, line) => {
          const refusal = refusalOf(line, new Date());
          if (taskId && refusal) this.#deps.refused(sessionId, taskId, refusal);
        },
      };
      mkdirSync(this.#deps.runDir, { recursive: true, mode: 0o700 });
      const place = { cwd: realish(this.#deps.workspace()), tmpdir: mkdtempSync(join(this.#deps.runDir, 's-')) };
      held = { runtime: new SessionRuntime(config, hooks, place), config: JSON.stringify(config) };
      this.#runtimes.set(sessionId, held);
    }
    try {
      await held.runtime.ready();
    } catch (error) {
      this.#runtimes.delete(sessionId);
      await held.runtime.close();
      throw error;
    }
    return held.runtime;
  }

  #refresh(sessionId: string): void {
    const held = this.#runtimes.get(sessionId);
    if (!held) return;
    const config = this.#config(sessionId);
    const text = JSON.stringify(config);
    if (text === held.config) return;
    held.config = text;
    held.runtime.update(config);
  }

  /** The library's configuration for a session: the policy with its paths made real, and the session's hosts. */
  #config(sessionId: string): RuntimeConfig {
    const policy = this.#deps.policy();
    const home = this.#deps.home ?? homedir();
    const expand = (path: string) =>
      realish(path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path);
    const workspace = realish(this.#deps.workspace());
    const dataDir = realish(this.#deps.dataDir);
    const sockets = policy.allowUnixSockets.map(expand);
    this.#bridge ??= bridgeProgram(this.#deps.dataDir, this.#deps.log);
    return {
      // The bridge wrapper runs inside the sandbox too (as its socket's listener): readable there, never writable.
      ...(this.#bridge ? { socatPath: this.#bridge } : {}),
      network: {
        allowedDomains: [...new Set([...policy.allowedHosts, ...(this.#hosts.get(sessionId) ?? [])])],
        deniedDomains: [],
        allowLocalBinding: false,
        // Linux filters Unix sockets with seccomp, which cannot tell one path from another: a listed
        // socket there opens them all (the settings say so); macOS allows exactly those listed.
        ...(sockets.length > 0
          ? process.platform === 'linux'
            ? { allowAllUnixSockets: true }
            : { allowUnixSockets: sockets }
          : {}),
      },
      filesystem: {
        denyRead: [...policy.denyRead.map(expand), dataDir],
        ...(this.#bridge ? { allowRead: [this.#bridge] } : {}),
        allowWrite: [workspace, realish(tmpdir()), ...policy.writablePaths.map(expand)],
        denyWrite: [dataDir, realish(this.#deps.runDir)],
      },
    };
  }
}

/**
 * The library's host-side bridges (socat, one per session's sandbox, relaying the sandbox's socket
 * to the session's proxy) are started by it, not by the pool: this wrapper has each one killed by
 * the kernel when the thread that started it ends (the session's worker, or Drover itself, crash
 * included), so none outlives its sandbox. Linux only, and only where util-linux's setpriv exists;
 * elsewhere null (the library's own cleanup at exit is all there is).
 */
export function bridgeProgram(dataDir: string, log: (message: string) => void): string | null {
  if (process.platform !== 'linux') return null;
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));
  if (!setpriv) {
    log('setpriv (util-linux) is missing: the sandbox network bridges end only when Drover exits cleanly');
    return null;
  }
  const file = join(dataDir, 'sandbox', 'socat-bridge');
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(
      file,
      "#!/bin/sh\n# Drover's sandbox bridge: socat, ended with the thread that started it. Inside the\n" +
        '# sandbox (the listener end) it is plain socat: the sandbox ends with its task.\n' +
        '[ -n "$SANDBOX_RUNTIME" ] && exec socat "$@"\n' +
        `exec ${setpriv} --pdeathsig KILL -- socat "$@"\n`,
      { mode: 0o700 },
    );
    chmodSync(file, 0o700);
    return file;
  } catch (error) {
    log(`the sandbox bridge wrapper could not be written (${(error as Error).message})`);
    return null;
  }
}

/**
 * Whether the working folder is Drover's data folder or lies inside it: the sandbox denies the
 * data folder whole, so commands there could not run, and no narrower rule keeps transcripts,
 * settings and logs from a command run among them. The sandbox is then not offered at all.
 */
export function insideDataFolder(dataDir: string, workspace: string): boolean {
  const inside = relative(realish(dataDir), realish(workspace));
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

/** The real path where it exists (links resolved, so a link cannot carry a denial away), else the path as given. */
function realish(path: string): string {
  try {
    return existsSync(path) ? realpathSync(path) : resolve(path);
  } catch {
    return resolve(path);
  }
}
