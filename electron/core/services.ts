import { join } from 'node:path';
import { contract, type AppInfo, type DroverContract } from '../../shared/contract.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { EventBus } from './event-bus.js';
import { randomId } from './ids.js';
import { createHandlers } from './handlers.js';
import { loadSettings, poolPolicyFrom, SettingsService } from './settings.js';
import { FileSecretStore, type SecretStore } from './secrets.js';
import { createRouter, type Router } from '../ipc/router.js';
import { DATABASE_FILE, openDatabase } from '../store/database.js';
import { TasksRepo } from '../store/tasks-repo.js';
import { SessionsService } from '../sessions/sessions-service.js';
import { CommandRunner } from '../pool/command-runner.js';
import { TaskPool } from '../pool/pool.js';
import type { PoolPolicy } from '../pool/policy.js';
import { OperatorShell } from '../shell/operator-shell.js';
import { currentInspector, type ProcessInspector } from '../process/inspector.js';
import { win32Os } from '../process/windows-os.js';
import { AgentService } from '../agent/agent-service.js';
import { backgroundTools } from '../agent/tools.js';
import { createLanguageModel } from '../agent/providers.js';
import { DEFAULT_MAX_WAKES_PER_SESSION, WakeScheduler } from '../agent/wakes.js';
import { PermissionService } from '../permissions/permission-service.js';
import { loadShellParser } from '../permissions/shell-parser.js';

export interface ServicesOptions {
  dataDir: string;
  version: string;
  host: AppInfo['host'];
  /** Where shell commands run unless told otherwise. */
  workingDir: string;
  /** Electron-ABI build of better-sqlite3 when the app runs from source under Electron. */
  sqliteBinding?: string;
  /** Overrides on top of settings.json (tests). */
  policy?: Partial<PoolPolicy>;
  /** Check answers against the contract (default true; the shipped entries turn it off). */
  checkOutputs?: boolean;
  /** The OS process facilities (a fake in tests of the leftover logic). */
  inspector?: ProcessInspector;
  /** Where the model API key is kept (the desktop app passes the OS keychain). */
  secrets?: SecretStore;
  env?: NodeJS.ProcessEnv;
  /** Where warnings go (a settings file that could not be used). */
  warn?: (message: string) => void;
}

/** Every service of one running app, wired once; both composition roots build exactly this. */
export interface Services extends ServerEndpoint {
  readonly bus: EventBus<DroverContract>;
  readonly router: Router;
  readonly sessions: SessionsService;
  readonly pool: TaskPool;
  readonly agent: AgentService;
  readonly settings: SettingsService;
  readonly databaseFile: string;
  /** Ends turns, stops every task, then closes the store. Safe to call twice. */
  shutdown(): Promise<void>;
}

export function createServices(options: ServicesOptions): Services {
  const warn = options.warn ?? ((message: string) => console.error(`drover: ${message}`));
  const loaded = loadSettings(options.dataDir);
  if (loaded.problem) warn(loaded.problem);
  const settings = new SettingsService(options.dataDir, options.secrets ?? new FileSecretStore(options.dataDir), loaded, options.env);

  const databaseFile = join(options.dataDir, DATABASE_FILE);
  const db = openDatabase(databaseFile, undefined, options.sqliteBinding);
  const bus = new EventBus(contract);
  const sessions = new SessionsService(db, bus);
  const inspector = options.inspector ?? currentInspector();
  const pool = new TaskPool({
    repo: new TasksRepo(db),
    runners: {
      command: new CommandRunner({
        identify: (pid) => inspector.identify(pid).processStart,
        ...(process.platform === 'win32' ? { windows: win32Os() } : {}),
      }),
    },
    inspector,
    dataDir: options.dataDir,
    runId: randomId(),
    policy: { ...poolPolicyFrom(loaded.settings), ...options.policy },
    listener: {
      taskChanged: (task) => bus.emit('taskUpdated', { task }),
      taskOutput: (sessionId, taskId, totalBytes) => bus.emit('taskOutput', { sessionId, taskId, totalBytes }),
    },
  });
  // The gate parses with tree-sitter-bash; until the grammar is loaded, nothing is judged.
  const parserReady = loadShellParser().then(
    () => undefined,
    (error: unknown) => warn(`the shell grammar could not be loaded, so every command will ask: ${String(error)}`),
  );
  const permissions = new PermissionService({
    bus,
    ready: parserReady,
    allowlist: () => settings.current.commandAllowlist ?? [],
    addToAllowlist: (entry) => {
      const current = settings.current.commandAllowlist ?? [];
      if (!current.includes(entry)) settings.update({ commandAllowlist: [...current, entry] });
      return settings.current.commandAllowlist ?? [];
    },
  });
  const agent = new AgentService({
    permit: (request, signal) => permissions.check(request, signal),
    sessions,
    bus,
    tools: backgroundTools(pool),
    cwd: () => options.workingDir,
    model: () => {
      const provider = settings.provider();
      return provider ? { model: createLanguageModel(provider.settings, provider.apiKey), streaming: provider.settings.streaming } : null;
    },
    log: warn,
  });
  const wakes = new WakeScheduler({
    wake: (sessionId, text) => void agent.submit(sessionId, text, { automated: true }).done,
    shuttingDown: () => pool.draining || agent.disposed,
    maxWakesPerSession: () => settings.current.agent?.maxWakesPerSession ?? DEFAULT_MAX_WAKES_PER_SESSION,
    log: warn,
  });
  const stopWakes = bus.subscribe((name, payload) => {
    if (name === 'taskUpdated') wakes.onTaskChanged((payload as { task: Parameters<WakeScheduler['onTaskChanged']>[0] }).task);
  });

  const handlers = createHandlers({
    info: { version: options.version, dataDir: options.dataDir, host: options.host },
    dataDir: options.dataDir,
    workingDir: options.workingDir,
    bus,
    sessions,
    pool,
    shell: new OperatorShell(pool, sessions, () => options.workingDir),
    agent,
    settings,
    permissions,
  });
  const router = createRouter(contract, handlers, { checkOutputs: options.checkOutputs ?? true });

  let closing: Promise<void> | null = null;
  return {
    bus,
    router,
    sessions,
    pool,
    agent,
    settings,
    databaseFile,
    handle: (name, input) => router.handle(name, input),
    subscribe: (listener) => bus.subscribe(listener),
    shutdown() {
      closing ??= (async () => {
        stopWakes();
        wakes.dispose();
        await agent.dispose();
        await pool.drain();
        db.close();
      })();
      return closing;
    },
  };
}
