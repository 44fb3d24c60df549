import { rm } from 'node:fs/promises';
import type { SandboxService } from '../sandbox/sandbox-service.js';
import { join } from 'node:path';
import type { AppInfo, DroverContract } from '../../shared/contract.js';
import type { Handlers } from '../ipc/router.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { TaskPool } from '../pool/pool.js';
import type { OperatorShell } from '../shell/operator-shell.js';
import type { TaskSnapshots } from '../sessions/task-snapshots.js';
import type { AgentService } from '../agent/agent-service.js';
import { detectOllama } from '../agent/providers.js';
import { scanLog, searchLog } from '../pool/log-search.js';
import { readLogRange } from '../pool/log-reads.js';
import { RenderedOutputs } from '../pool/output-cache.js';
import { RenderedReplies } from '../sessions/rendered-replies.js';
import { isSettled, type TaskRow } from '../../shared/schemas/task.js';
import type { AgentDefinition, AgentDefinitionProblem, AgentRun } from '../../shared/schemas/subagent.js';
import { stat } from 'node:fs/promises';
import { DroverError } from '../../shared/ipc/errors.js';
import type { EventBus } from './event-bus.js';
import type { SettingsService } from './settings.js';
import type { PermissionService } from '../permissions/permission-service.js';
import type { AgentTool } from '../agent/tools.js';
import { watchHandlers } from './handlers-watch.js';
import { openHandlers } from './handlers-open.js';
import { workHandlers, type WorkHandlerDeps } from './handlers-work.js';
import type { Checklists } from '../checklist/checklist.js';
import { scheduleHandlers } from '../scheduler/schedule-handlers.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { UnattendedBudget } from '../agent/unattended-budget.js';

export interface HandlerDeps {
  info: Omit<AppInfo, 'storage' | 'sandbox'>;
  /** Whether the data folder's disk has room, as of now. */
  storage: () => AppInfo['storage'];
  dataDir: string;
  workingDir: string;
  bus: EventBus<DroverContract>;
  sessions: SessionsService;
  pool: TaskPool;
  shell: OperatorShell;
  /** Keeps tool rows whole before their tasks are forgotten. */
  snapshots: TaskSnapshots;
  agent: AgentService;
  settings: SettingsService;
  permissions: PermissionService;
  sandbox: SandboxService;
  /** kill_shell, shared with the model. */
  kill: AgentTool;
  portsSupported: boolean;
  work: Pick<WorkHandlerDeps, 'ledger' | 'listOf' | 'watch' | 'changed'>;
  checklists: Checklists;
  /** The scheduler; throws why it is not available. */
  scheduling: () => Scheduler;
  budget: UnattendedBudget;
  /** An agent task's run: status, result, transcript. */
  agentRun: (task: TaskRow) => Promise<AgentRun>;
  /** The sub-agent definitions in force, and the files that could not be used. */
  agentDefinitions: () => { agents: AgentDefinition[]; problems: AgentDefinitionProblem[] };
  /** Shows a file in the OS file manager (the desktop app's shell.showItemInFolder); absent in the headless host. */
  revealFile?: (path: string) => void;
  /** Asks where to save a copy of a file and writes it there; null when cancelled (desktop app only). */
  saveFileCopy?: (source: string, suggestedName: string) => Promise<string | null>;
}

/** One handler per request of the contract; inputs arrive validated. */
export function createHandlers(d: HandlerDeps): Handlers<DroverContract> {
  const { sessions, pool, agent, settings, bus } = d;
  const requireSession = (id: string) => sessions.require(id);
  // Reads of task output are rendered a few at a time and remembered once a task has settled (issue #12).
  const outputs = new RenderedOutputs();
  const readOutput = async (task: TaskRow, tail?: number) => {
    const render = () => pool.output(task.sessionId, task.id, tail);
    if (task.running || !isSettled(task.status)) return outputs.read(null, render);
    // The log's size is in the key, so a settled log that still changed (a late flush) is rendered afresh.
    const size = await stat(task.logPath).then(
      (info) => info.size,
      () => -1,
    );
    return outputs.read(`${task.sessionId}/${task.id}/${tail ?? 'all'}/${size}`, render);
  };
  // Replies go out rendered, so a page opening a session needs no Markdown parser of its own first (issue 18).
  const replies = new RenderedReplies();
  setImmediate(() => replies.warmUp());
  const runOf = (task: TaskRow) => (task.kind === 'agent' ? d.agentRun(task) : Promise.resolve(null));
  return {
    ...watchHandlers({
      pool,
      kill: d.kill,
      workingDir: d.workingDir,
      requireSession,
      portsSupported: d.portsSupported,
    }),
    ...workHandlers({ ...d.work, checklists: d.checklists, requireSession }),
    ...openHandlers({ pool, requireSession }),
    ...scheduleHandlers({
      scheduler: d.scheduling,
      requireSession,
      note: (sessionId, text) => void sessions.append({ sessionId, role: 'system', text }),
    }),
    getBudget: ({ sessionId }) => {
      requireSession(sessionId);
      return d.budget.state(sessionId);
    },
    resumeBudget: ({ sessionId }) => {
      requireSession(sessionId);
      // What waited for the budget runs now (the budget's `reopened`).
      return d.budget.resume(sessionId);
    },
    appInfo: () => ({ ...d.info, storage: d.storage(), sandbox: d.sandbox.status }),
    listSessions: () => sessions.list(),
    createSession: ({ title }) => sessions.create(title),
    getSession: ({ id }) => sessions.get(id),
    renameSession: ({ id, title }) => sessions.rename(id, title),
    setSessionMode: ({ id, mode }) => sessions.setMode(id, mode),
    deleteSession: async ({ id }) => {
      requireSession(id);
      // Nothing of a deleted session is left running or on disk.
      agent.cancel(id);
      forgetSchedules(d.scheduling, id);
      await pool.stopSession(id);
      // Its sandbox goes once nothing of it runs; then no connection of it can still be asking.
      await d.sandbox.forget(id);
      d.permissions.forget(id);
      const deleted = sessions.delete(id);
      outputs.forget(`${id}/`);
      await rm(join(d.dataDir, 'sessions', id), { recursive: true, force: true });
      return deleted;
    },
    listMessages: ({ sessionId, beforeId, limit }) => replies.attach(sessions.messages(sessionId, { beforeId, limit })),
    postMessage: ({ sessionId, text }) => agent.submit(sessionId, text).message,
    cancelTurn: ({ sessionId }) => {
      requireSession(sessionId);
      return { cancelled: agent.cancel(sessionId) };
    },
    retryTurn: ({ sessionId }) => {
      requireSession(sessionId);
      void agent.retry(sessionId).done;
      return { retrying: true as const };
    },
    agentStatus: ({ sessionId }) => {
      requireSession(sessionId);
      return {
        busy: agent.isBusy(sessionId),
        connected: settings.provider() !== null,
        error: agent.failure(sessionId),
      };
    },
    getSettings: () => settings.publicView(),
    updateSettings: (change) => settings.update(change),
    testConnection: ({ provider }) => settings.testConnection(provider),
    detectLocalModel: async () => ({ ollama: await detectOllama() }),
    listPermissions: ({ sessionId }) => {
      requireSession(sessionId);
      return { pending: d.permissions.pending(sessionId), grants: d.permissions.grants(sessionId) };
    },
    waitingPermissions: () => ({ waiting: d.permissions.allPending() }),
    answerPermission: ({ sessionId, requestId, answer }) => {
      requireSession(sessionId);
      return d.permissions.answer(sessionId, requestId, answer);
    },
    getSandbox: ({ sessionId }) => {
      requireSession(sessionId);
      return d.sandbox.view(sessionId);
    },
    allowSandboxHost: ({ sessionId, host }) => {
      requireSession(sessionId);
      d.sandbox.allowHost(sessionId, host);
      return d.sandbox.view(sessionId);
    },
    removeSandboxHost: ({ sessionId, host }) => {
      requireSession(sessionId);
      if (!d.sandbox.removeHost(sessionId, host))
        throw new DroverError('not_found', `No host "${host}" allowed for this session`, { path: 'host' });
      return d.sandbox.view(sessionId);
    },
    revokeGrant: ({ sessionId, kind, value }) => {
      requireSession(sessionId);
      return { grants: d.permissions.revoke(sessionId, kind, value) };
    },
    promoteGrant: ({ sessionId, kind, value }) => {
      requireSession(sessionId);
      return d.permissions.promote(sessionId, kind, value);
    },
    runShell: ({ sessionId, command, background }) => d.shell.run(sessionId, command, background),
    startTask: async ({ sessionId, cwd, notify, ...rest }) => {
      requireSession(sessionId);
      // A start from the panel or REST is the person's, like their own lines: in the sandbox only when the settings say so.
      const record = await pool.start({
        ...rest,
        sessionId,
        cwd: cwd ?? d.workingDir,
        notifyMode: notify,
        sandboxed: d.sandbox.applies('operator'),
      });
      return pool.row(sessionId, record.id);
    },
    listTasks: ({ sessionId }) => {
      requireSession(sessionId);
      const tasks = pool.list(sessionId);
      return { tasks, runningCount: tasks.filter((task) => task.running).length };
    },
    getTask: async ({ sessionId, taskId, tail }) => {
      requireSession(sessionId);
      const task = pool.row(sessionId, taskId);
      return { task, output: await readOutput(task, tail), agent: await runOf(task) };
    },
    listAgentDefinitions: () => d.agentDefinitions(),
    getAgentRun: async ({ sessionId, taskId }) => {
      requireSession(sessionId);
      const task = pool.row(sessionId, taskId);
      if (task.kind !== 'agent')
        throw new DroverError('conflict', `Task ${taskId} is a ${task.kind}, not an agent`, { path: 'taskId' });
      return d.agentRun(task);
    },
    backgroundTask: ({ sessionId, taskId }) => ({ task: d.shell.background(sessionId, taskId) }),
    stopTask: async ({ sessionId, taskId }) => {
      requireSession(sessionId);
      const { wasSettled } = await pool.stop(sessionId, taskId);
      const task = pool.row(sessionId, taskId);
      return { task, output: await readOutput(task), agent: await runOf(task), alreadySettled: wasSettled };
    },
    readTaskLog: async ({ sessionId, taskId, fromByte }) => {
      requireSession(sessionId);
      const range = await readLogRange(pool.row(sessionId, taskId).logPath, fromByte, pool.policy.persistedReadBytes);
      // A slice may start inside a UTF-8 character; the terminal view copes with a replacement mark.
      return {
        data: range.bytes.toString('utf8'),
        fromByte: range.fromByte,
        toByte: range.toByte,
        truncated: range.truncated,
      };
    },
    writeTask: ({ sessionId, taskId, data }) => {
      requireSession(sessionId);
      pool.write(sessionId, taskId, data);
      return { written: data.length };
    },
    searchTaskLog: async ({ sessionId, taskId, query, maxMatches }) => {
      requireSession(sessionId);
      return searchLog(pool.row(sessionId, taskId).logPath, query, maxMatches);
    },
    reapTasks: async ({ sessionId }) => {
      requireSession(sessionId);
      return pool.reap(sessionId);
    },
    scanTaskLog: async ({ sessionId, taskId, query, maxMatches, fromByte, firstLine }) => {
      requireSession(sessionId);
      return scanLog(pool.row(sessionId, taskId).logPath, query, { maxMatches, fromByte, firstLine });
    },
    rerunTask: async ({ sessionId, taskId }) => {
      requireSession(sessionId);
      const task = pool.row(sessionId, taskId);
      // An agent's "command" is its description, text a model wrote: never a shell line.
      if (task.kind === 'agent')
        throw new DroverError('conflict', `Task ${taskId} is an agent; it cannot be rerun as a command`, {
          path: 'taskId',
        });
      // The person chose to run it again: it runs as their shell line, in the folder it ran in.
      return d.shell.run(
        sessionId,
        task.command,
        !task.foreground || task.adopted,
        task.cwd,
        task.tty,
        // A rerun keeps the sandbox the task had, where there still is one.
        task.sandboxed && d.sandbox.status.available,
      );
    },
    revealTaskLog: ({ sessionId, taskId }) => {
      requireSession(sessionId);
      const path = pool.row(sessionId, taskId).logPath;
      if (!d.revealFile) return { revealed: false, path };
      d.revealFile(path);
      return { revealed: true, path };
    },
    saveTaskLog: async ({ sessionId, taskId }) => {
      requireSession(sessionId);
      const path = pool.row(sessionId, taskId).logPath;
      if (!d.saveFileCopy) {
        throw new DroverError(
          'unavailable',
          'Saving a copy through a dialog is the desktop app’s; here, download the log (GET …/background-tasks/{task_id}/log)',
        );
      }
      return { savedTo: await d.saveFileCopy(path, `${taskId}.log`) };
    },
    clearFinishedTasks: async ({ sessionId, taskIds }) => {
      requireSession(sessionId);
      // The transcript keeps what its rows showed before the tasks and their logs go: only tasks
      // it recorded are removed (never "every settled task", which may take one that settled
      // after this check), and one it could not record stays, with the reason.
      const { safe, failed } = await d.snapshots.beforeForget(sessionId, taskIds);
      const removed = await pool.clearFinished(sessionId, safe);
      for (const id of removed) outputs.forget(`${sessionId}/${id}/`);
      bus.emit('tasksCleared', { sessionId, removed });
      const kept = failed.map(({ taskId, reason }) => ({
        taskId,
        reason: `the transcript could not record it first (${reason})`,
      }));
      return kept.length > 0 ? { removed, kept } : { removed };
    },
  };
}

/** A deleted session's schedules go with it (nothing to do when scheduling is unavailable). */
function forgetSchedules(scheduling: () => Scheduler, sessionId: string): void {
  let scheduler: Scheduler;
  try {
    scheduler = scheduling();
  } catch {
    return;
  }
  scheduler.forgetSession(sessionId);
}
