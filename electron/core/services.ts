import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { contract, type AppInfo, type DroverContract } from '../../shared/contract.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { EventBus } from './event-bus.js';
import { randomId } from './ids.js';
import { loadSettings, poolPolicyFrom } from './settings.js';
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

export interface ServicesOptions {
  dataDir: string;
  version: string;
  host: AppInfo['host'];
  /** Where the operator's shell lines run. */
  workingDir: string;
  /** Electron-ABI build of better-sqlite3 when the app runs from source under Electron. */
  sqliteBinding?: string;
  /** Overrides on top of settings.json (tests). */
  policy?: Partial<PoolPolicy>;
  /** Check answers against the contract (default true; the shipped entries turn it off). */
  checkOutputs?: boolean;
  /** The OS process facilities (a fake in tests of the leftover logic). */
  inspector?: ProcessInspector;
  /** Where warnings go (a settings file that could not be used). */
  warn?: (message: string) => void;
}

/** Every service of one running app, wired once; both composition roots build exactly this. */
export interface Services extends ServerEndpoint {
  readonly bus: EventBus<DroverContract>;
  readonly router: Router;
  readonly sessions: SessionsService;
  readonly pool: TaskPool;
  readonly databaseFile: string;
  /** Stops every task, then closes the store. Safe to call twice. */
  shutdown(): Promise<void>;
}

export function createServices(options: ServicesOptions): Services {
  const warn = options.warn ?? ((message: string) => console.error(`drover: ${message}`));
  const { settings, problem } = loadSettings(options.dataDir);
  if (problem) warn(problem);

  const databaseFile = join(options.dataDir, DATABASE_FILE);
  const db: Database = openDatabase(databaseFile, undefined, options.sqliteBinding);
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
    policy: { ...poolPolicyFrom(settings), ...options.policy },
    listener: {
      taskChanged: (task) => bus.emit('taskUpdated', { task }),
      taskOutput: (sessionId, taskId, totalBytes) => bus.emit('taskOutput', { sessionId, taskId, totalBytes }),
    },
  });
  const shell = new OperatorShell(pool, sessions, () => options.workingDir);
  const info: AppInfo = { version: options.version, dataDir: options.dataDir, host: options.host };
  const requireSession = (id: string) => sessions.get(id);

  const router = createRouter(contract, {
    appInfo: () => info,
    listSessions: () => sessions.list(),
    createSession: ({ title }) => sessions.create(title),
    getSession: ({ id }) => sessions.get(id),
    renameSession: ({ id, title }) => sessions.rename(id, title),
    deleteSession: async ({ id }) => {
      requireSession(id);
      // Nothing of a deleted session is left running or on disk.
      await pool.stopSession(id);
      const deleted = sessions.delete(id);
      await rm(join(options.dataDir, 'sessions', id), { recursive: true, force: true });
      return deleted;
    },
    listMessages: ({ sessionId }) => sessions.messages(sessionId),
    postMessage: ({ sessionId, text }) => sessions.postUserMessage(sessionId, text),
    runShell: ({ sessionId, command, background }) => shell.run(sessionId, command, background),
    startTask: async ({ sessionId, command, cwd, expectedSeconds, timeoutSeconds, notifyOnFinish }) => {
      requireSession(sessionId);
      const record = await pool.start({ sessionId, command, cwd: cwd ?? options.workingDir, expectedSeconds, timeoutSeconds, notifyOnFinish });
      return pool.row(sessionId, record.id);
    },
    listTasks: ({ sessionId }) => {
      requireSession(sessionId);
      const tasks = pool.list(sessionId);
      return { tasks, runningCount: tasks.filter((task) => task.running).length };
    },
    getTask: async ({ sessionId, taskId, tail }) => {
      requireSession(sessionId);
      return { task: pool.row(sessionId, taskId), output: await pool.output(sessionId, taskId, tail) };
    },
    stopTask: async ({ sessionId, taskId }) => {
      requireSession(sessionId);
      const { wasSettled } = await pool.stop(sessionId, taskId);
      return { task: pool.row(sessionId, taskId), output: await pool.output(sessionId, taskId), alreadySettled: wasSettled };
    },
    reapTasks: async ({ sessionId }) => {
      requireSession(sessionId);
      return pool.reap(sessionId);
    },
    clearFinishedTasks: async ({ sessionId }) => {
      requireSession(sessionId);
      const removed = await pool.clearFinished(sessionId);
      bus.emit('tasksCleared', { sessionId, removed });
      return { removed };
    },
  }, { checkOutputs: options.checkOutputs ?? true });

  let closing: Promise<void> | null = null;
  return {
    bus,
    router,
    sessions,
    pool,
    databaseFile,
    handle: (name, input) => router.handle(name, input),
    subscribe: (listener) => bus.subscribe(listener),
    shutdown() {
      closing ??= pool.drain().finally(() => db.close());
      return closing;
    },
  };
}
