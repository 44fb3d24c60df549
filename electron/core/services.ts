import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { contract, type AppInfo, type DroverContract } from '../../shared/contract.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { EventBus } from './event-bus.js';
import { createRouter, type Router } from '../ipc/router.js';
import { DATABASE_FILE, openDatabase } from '../store/database.js';
import { SessionsService } from '../sessions/sessions-service.js';

export interface ServicesOptions {
  dataDir: string;
  version: string;
  host: AppInfo['host'];
  /** Electron-ABI build of better-sqlite3 when the app runs from source under Electron. */
  sqliteBinding?: string;
}

/** Every service of one running app, wired once; both composition roots build exactly this. */
export interface Services extends ServerEndpoint {
  readonly bus: EventBus<DroverContract>;
  readonly router: Router;
  readonly sessions: SessionsService;
  readonly databaseFile: string;
  dispose(): void;
}

export function createServices(options: ServicesOptions): Services {
  const databaseFile = join(options.dataDir, DATABASE_FILE);
  const db: Database = openDatabase(databaseFile, undefined, options.sqliteBinding);
  const bus = new EventBus(contract);
  const sessions = new SessionsService(db, bus);
  const info: AppInfo = { version: options.version, dataDir: options.dataDir, host: options.host };

  const router = createRouter(contract, {
    appInfo: () => info,
    listSessions: () => sessions.list(),
    createSession: ({ title }) => sessions.create(title),
    getSession: ({ id }) => sessions.get(id),
    renameSession: ({ id, title }) => sessions.rename(id, title),
    deleteSession: ({ id }) => sessions.delete(id),
    listMessages: ({ sessionId }) => sessions.messages(sessionId),
    postMessage: ({ sessionId, text }) => sessions.postUserMessage(sessionId, text),
  });

  let disposed = false;
  return {
    bus,
    router,
    sessions,
    databaseFile,
    handle: (name, input) => router.handle(name, input),
    subscribe: (listener) => bus.subscribe(listener),
    dispose() {
      if (disposed) return;
      disposed = true;
      db.close();
    },
  };
}
