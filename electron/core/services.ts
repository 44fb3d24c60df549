import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { contract, type AppInfo, type DroverContract } from '../../shared/contract.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { EventBus } from './event-bus.js';
import { randomId } from './ids.js';
import { createHandlers } from './handlers.js';
import { budgetLimits, KEY_VARIABLES, loadSettings, SettingsService } from './settings.js';
import { instanceIdFor } from './instance.js';
import { FileSecretStore, type SecretStore } from './secrets.js';
import { createRouter, type Router } from '../ipc/router.js';
import { DATABASE_FILE, openDatabase } from '../store/database.js';
import { DiskWatch } from '../store/disk-watch.js';
import { sqliteProblem } from '../store/sqlite-errors.js';
import { TasksRepo } from '../store/tasks-repo.js';
import { MetaRepo } from '../store/meta-repo.js';
import { lockDataFolder, OWNER_KEY, type FolderOwner } from '../store/data-lock.js';
import { SessionsService } from '../sessions/sessions-service.js';
import { CommandRunner } from '../pool/command-runner.js';
import { TaskPool } from '../pool/pool.js';
import type { PoolPolicy } from '../pool/policy.js';
import { OperatorShell } from '../shell/operator-shell.js';
import { ForegroundHandovers } from '../pool/adoption.js';
import { TaskSnapshots } from '../sessions/task-snapshots.js';
import type { ProcessInspector } from '../process/inspector.js';
import { createProcessLayer } from './process-layer.js';
import { followTasks } from './task-followers.js';
import { AgentService } from '../agent/agent-service.js';
import { createKillTool } from '../agent/kill-tool.js';
import { PermissionService } from '../permissions/permission-service.js';
import { Planning } from '../work/planning.js';
import { Scheduling } from '../scheduler/scheduler-service.js';
import { UnattendedBudget } from '../agent/unattended-budget.js';
import { Subagents } from '../subagents/subagents.js';
import { sessionTools } from './session-tools.js';
import { probeSandbox, SandboxService } from '../sandbox/sandbox-service.js';
import { sandboxPolicyOf } from '../../shared/schemas/sandbox.js';
import type { Scheduler } from '../scheduler/scheduler.js';
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
  /** 'group' holds tasks in process groups even where cgroups could be made (tests of the fallback). */
  containment?: 'auto' | 'group';
  /** Where the model API key is kept (the desktop app passes the OS keychain). */
  secrets?: SecretStore;
  env?: NodeJS.ProcessEnv;
  /** Where warnings go (a settings file that could not be used). */
  warn?: (message: string) => void;
  /** Shows a file in the OS file manager (the desktop app passes shell.showItemInFolder); the host has none. */
  revealFile?: (path: string) => void;
  /** Asks where to save a copy of a file and writes it (the desktop app's save dialog); the host has none. */
  saveFileCopy?: (source: string, suggestedName: string) => Promise<string | null>;
  /**
   * 'off': no command runs in a sandbox on this run (tests of everything else; the environment's
   * DROVER_SANDBOX=off does the same); 'auto' (default): as the settings say and this machine allows.
   */
  sandbox?: 'auto' | 'off';
  /** The scheduler's clock, and whether it looks for due runs by itself (tests move the clock and call tick). */
  scheduler?: { clock?: { now(): number }; ticking?: boolean };
}

/** Every service of one running app, wired once; both composition roots build exactly this. */
export interface Services extends ServerEndpoint {
  readonly bus: EventBus<DroverContract>;
  readonly router: Router;
  readonly sessions: SessionsService;
  readonly pool: TaskPool;
  readonly agent: AgentService;
  readonly settings: SettingsService;
  /** Whether the data folder's disk has room; every writer reports a full disk here. */
  readonly disk: DiskWatch;
  readonly databaseFile: string;
  /** This data folder's random id. */
  readonly instanceId: string;
  /** Schedules, loops and durable jobs; null when scheduler.sqlite could not be opened. */
  readonly scheduler: Scheduler | null;
  /** Says where this instance can be reached (without its token), for a second Drover's refusal message. */
  announce(address: string): void;
  /** Ends turns, stops every task, then closes the store. Safe to call twice. */
  shutdown(): Promise<void>;
}

export function createServices(options: ServicesOptions): Services {
  const warn = options.warn ?? ((message: string) => console.error(`drover: ${message}`));
  // The data folder is this process's before anything in it is opened; a second Drover stops here.
  const lock = lockDataFolder(options.dataDir, options.sqliteBinding);
  try {
    return buildServices(options, warn, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

function buildServices(options: ServicesOptions, warn: (message: string) => void, lock: { release(): void }): Services {
  const loaded = loadSettings(options.dataDir);
  if (loaded.problem) warn(loaded.problem);
  const settings = new SettingsService(
    options.dataDir,
    options.secrets ?? new FileSecretStore(options.dataDir),
    loaded,
    options.env,
    options.policy,
  );

  const databaseFile = join(options.dataDir, DATABASE_FILE);
  const db = openDatabase(databaseFile, undefined, options.sqliteBinding);
  const meta = new MetaRepo(db);
  const instanceId = instanceIdFor(meta, options.dataDir);
  const bus = new EventBus(contract);
  // A full disk is a state: Drover starts and serves what it has, says so, and resumes when room returns.
  const disk = new DiskWatch({
    folder: options.dataDir,
    onChange: (storage) => bus.emit('storageChanged', { storage }),
  });
  const owner: FolderOwner = { pid: process.pid, host: options.host, startedAt: Date.now(), address: null };
  const noteOwner = (value: FolderOwner) => {
    try {
      meta.set(OWNER_KEY, JSON.stringify(value));
    } catch (error) {
      // Only a second Drover's refusal message reads this; the lock itself is what keeps it out.
      if (!disk.noteFailure(error)) throw error;
    }
  };
  noteOwner(owner);
  const sessions = new SessionsService(db, bus);
  const { unixOs, inspector, identify, containers, ports } = createProcessLayer({
    instanceId,
    containment: options.containment,
    inspector: options.inspector,
    warn,
    pool: () => pool,
  });
  // The sandbox (issue 19): the session's policy around the model's commands, where this machine has one.
  // Drover's own environment decides DROVER_SANDBOX (options.env is what settings read keys from).
  const sandboxMode = options.sandbox ?? (process.env.DROVER_SANDBOX === 'off' ? 'off' : 'auto');
  const sandbox: SandboxService = new SandboxService(
    {
      policy: () => sandboxPolicyOf(settings.current.sandbox),
      dataDir: options.dataDir,
      runDir: join(tmpdir(), `drover-sandbox-${instanceId}`),
      workspace: () => options.workingDir,
      askNetwork: (sessionId, host, port) => permissions.askNetwork(sessionId, host, port),
      refused: (sessionId, taskId, refusal) => void pool.noteSandboxRefusal(sessionId, taskId, refusal),
      hostsChanged: (sessionId) => bus.emit('sandboxChanged', { sandbox: sandbox.view(sessionId) }),
      mode: sandboxMode,
      home: (options.env ?? process.env).HOME,
      log: warn,
    },
    probeSandbox,
  );
  settings.onChange(() => sandbox.policyChanged());
  // A monitor is a command watched differently: the same runner, containment and log.
  const commandRunner = new CommandRunner({
    sandbox,
    containers,
    identify,
    ...(unixOs ? { processState: (pid: number) => unixOs.processState(pid) } : {}),
    passEnvironment: () => settings.current.tasks?.passEnvironment ?? [],
    taskNice: () => pool.policy.taskNice,
    shareTaskCpu: () => pool.policy.shareTaskCpu,
    secretVariables: Object.values(KEY_VARIABLES),
    log: warn,
  });
  // Background sub-agents: a runner of agent tasks in the same pool, and the model's agent tools.
  const subagents = new Subagents({
    projectDir: options.workingDir,
    userDir: join(options.dataDir, 'agents'),
    model: (definition) => settings.languageModel(definition.model),
    tools: () => baseTools,
    permit: (request, signal) => gate(request, signal),
    log: warn,
  });
  const pool: TaskPool = new TaskPool({
    ports,
    disk,
    repo: new TasksRepo(db),
    runners: { command: commandRunner, monitor: commandRunner, agent: subagents.runner },
    inspector,
    dataDir: options.dataDir,
    runId: randomId(),
    instanceId,
    log: warn,
    policy: settings.poolPolicy(),
    listener: {
      taskChanged: (task) => bus.emit('taskUpdated', { task }),
      taskOutput: (sessionId, taskId, totalBytes) => bus.emit('taskOutput', { sessionId, taskId, totalBytes }),
    },
  });
  subagents.attach(pool);
  // A saved change applies at once: the pool reads its policy at each start, stop, cap check and wait.
  settings.onChange(() => pool.applyPolicy(settings.poolPolicy()));
  // The gate parses with tree-sitter-bash; until the grammar is loaded, nothing is judged.
  const parserReady = loadShellParser().then(
    () => undefined,
    (error: unknown) => warn(`the shell grammar could not be loaded, so every command will ask: ${String(error)}`),
  );
  const permissions: PermissionService = new PermissionService({
    bus,
    ready: parserReady,
    workspace: () => options.workingDir,
    sandbox: {
      applies: () => sandbox.applies('model'),
      runWithoutAsking: () => sandboxPolicyOf(settings.current.sandbox).runWithoutAsking,
    },
    // Read at every command: switching mode applies to the very next one, even within a turn.
    planMode: (sessionId) => sessions.get(sessionId).mode === 'plan',
    allowlist: () => settings.current.commandAllowlist ?? [],
    addToAllowlist: (entry) => {
      const current = settings.current.commandAllowlist ?? [];
      if (!current.includes(entry)) settings.update({ commandAllowlist: [...current, entry] });
      return settings.current.commandAllowlist ?? [];
    },
  });
  // Every command of the model passes the gate; where the settings want a sandbox and this machine
  // has none, the session is told so once, at its first command.
  const gate: PermissionService['check'] = (request, signal, onAsk) => {
    const notice = sandbox.unavailableNotice(request.sessionId);
    if (notice) void sessions.append({ sessionId: request.sessionId, role: 'system', text: notice, automated: true });
    return permissions.check(request, signal, onAsk);
  };
  // A foreground run waits on one registry, so "Background" reaches the `!` line and the model's call alike.
  const handovers = new ForegroundHandovers();
  // Tool rows keep what they showed of their tasks, so Clear never empties the transcript.
  const snapshots = new TaskSnapshots({ sessions, source: pool, log: warn });
  const stopSnapshots = bus.subscribe(snapshots.listener);
  // Planning: the work ledger, the session's list of it, and the checklist.
  const planning = new Planning({
    dataDir: options.dataDir,
    sqliteBinding: options.sqliteBinding,
    db,
    bus,
    env: options.env ?? process.env,
    warn,
  });
  const { ledger, checklists, listOf: workListId, changed: workChanged } = planning;
  const killTool = createKillTool({ pool, instanceId, ...(unixOs ? { os: unixOs } : {}) });
  // What unattended turns (wake-ups, loop passes, scheduled prompts) may use, per session.
  const budget = new UnattendedBudget(db, {
    limits: () => budgetLimits(settings.current),
    changed: (state, told) => bus.emit('budgetChanged', { budget: state, told }),
    note: (sessionId, text) => void sessions.append({ sessionId, role: 'system', text, automated: true }),
    log: warn,
    // What waited for the budget runs: the gathered wake-ups in one turn, and due schedules at once.
    reopened: (sessionId) => {
      followers.wakes.release(sessionId);
      void scheduling.scheduler?.tick();
    },
  });
  settings.onChange(() => budget.limitsChanged(sessions.list().map((session) => session.id)));
  // Schedules run as automated turns, one at a time with the person's, never while a turn runs.
  const scheduling: Scheduling = new Scheduling({
    dataDir: options.dataDir,
    workingDir: options.workingDir,
    sqliteBinding: options.sqliteBinding,
    holder: instanceId,
    clock: options.scheduler?.clock,
    ticking: options.scheduler?.ticking,
    idle: (sessionId): boolean => agent.isIdle(sessionId),
    allowed: (sessionId) => budget.allows(sessionId),
    sessionExists: (sessionId) => sessions.list().some((session) => session.id === sessionId),
    submit: (sessionId, text, schedule, byPerson): Promise<void> =>
      agent.submit(sessionId, text, { automated: true, schedule, charged: !byPerson }).done,
    createSession: (title) => sessions.create(title).id,
    note: (sessionId, text) => void sessions.append({ sessionId, role: 'system', text, automated: true }),
    changed: (sessionId) => bus.emit('schedulesChanged', { sessionId }),
    resumeWithoutAsking: () => settings.current.scheduler?.resumeWithoutAsking ?? false,
    log: warn,
  });
  const baseTools = sessionTools({
    pool,
    handovers,
    planning,
    killTool,
    scheduling: scheduling.tools(),
    settings,
  });
  const agent: AgentService = new AgentService({
    permit: (request, signal, onAsk) => gate(request, signal, onAsk),
    sessions,
    bus,
    tools: [...baseTools, ...subagents.tools()],
    backgroundEnabled: () => pool.policy.enabled,
    // The person's edits that closed a plan: the model hears of them at its next turn.
    turnNotes: (sessionId) => checklists.takeNotesForModel(sessionId),
    cwd: () => options.workingDir,
    model: () => settings.languageModel(),
    budget,
    log: warn,
  });
  const followers = followTasks({
    bus,
    agent,
    budget,
    pool,
    ledger: () => ledger.get(),
    workChanged,
    warn,
  });

  const handlers = createHandlers({
    storage: () => disk.state,
    info: {
      version: options.version,
      dataDir: options.dataDir,
      host: options.host,
      containment: { kind: containers.kind, detail: containers.description },
    },
    dataDir: options.dataDir,
    workingDir: options.workingDir,
    bus,
    sessions,
    pool,
    shell: new OperatorShell(
      pool,
      sessions,
      () => options.workingDir,
      handovers,
      () => sandbox.applies('operator'),
    ),
    snapshots,
    agent,
    settings,
    permissions,
    sandbox,
    kill: killTool,
    work: {
      ledger: () => ledger.get(),
      listOf: workListId,
      watch: (listId) => planning.watch.watch(listId),
      changed: workChanged,
    },
    checklists,
    scheduling: () => scheduling.get(),
    budget,
    agentRun: (task) => subagents.readRun(task),
    agentDefinitions: () => subagents.definitions(),
    portsSupported: ports !== null,
    ...(options.revealFile ? { revealFile: options.revealFile } : {}),
    ...(options.saveFileCopy ? { saveFileCopy: options.saveFileCopy } : {}),
  });
  const router = createRouter(contract, handlers, {
    checkOutputs: options.checkOutputs ?? true,
    // SQLite's failures become errors a person can act on: a full disk, a damaged or read-only file.
    mapError: (error) => sqliteProblem(error, databaseFile),
  });

  let closing: Promise<void> | null = null;
  return {
    bus,
    router,
    sessions,
    pool,
    agent,
    settings,
    disk,
    databaseFile,
    instanceId,
    scheduler: scheduling.scheduler,
    announce(address) {
      noteOwner({ ...owner, address });
    },
    async handle(name, input) {
      const result = await router.handle(name, input);
      if (!result.ok && result.error.code === 'disk_full') disk.noteFailure(result.error);
      return result;
    },
    subscribe: (listener) => bus.subscribe(listener),
    shutdown() {
      closing ??= (async () => {
        scheduling.scheduler?.stop();
        followers.dispose();
        stopSnapshots();
        snapshots.dispose();
        await agent.dispose();
        await pool.drain(warn);
        await sandbox.dispose();
        containers.dispose();
        ports?.dispose();
        planning.dispose();
        scheduling.close();
        disk.dispose();
        db.close();
        lock.release();
      })();
      return closing;
    },
  };
}
