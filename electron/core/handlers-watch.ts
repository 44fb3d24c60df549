import type { DroverContract } from '../../shared/contract.js';
import { DroverError } from '../../shared/ipc/errors.js';
import type { ToolDisplay } from '../../shared/schemas/message.js';
import { KillShellInput } from '../../shared/schemas/kill.js';
import type { AgentTool } from '../agent/tools.js';
import type { Handlers } from '../ipc/router.js';
import type { TaskPool } from '../pool/pool.js';
import { readTaskEvents } from '../pool/task-events.js';

type WatchHandlers = Pick<Handlers<DroverContract>, 'readTaskEvents' | 'listPorts' | 'killProcess'>;

export interface WatchHandlerDeps {
  pool: TaskPool;
  /** kill_shell, the same tool the model calls. */
  kill: AgentTool;
  workingDir: string;
  requireSession: (id: string) => void;
  /** Whether this OS tells which process listens on a port. */
  portsSupported: boolean;
}

/** Delta reads, the port index and kill_shell for the UI and REST: the model's tools, asked directly. */
export function watchHandlers(d: WatchHandlerDeps): WatchHandlers {
  return {
    readTaskEvents: async ({ sessionId, taskId, fromOffset, maxBytes }) => {
      d.requireSession(sessionId);
      // An explicit offset always: the model's stored offset is its own.
      return readTaskEvents(d.pool, sessionId, taskId, { fromOffset: fromOffset ?? 0, maxBytes });
    },
    listPorts: () => ({ supported: d.portsSupported, ports: d.pool.listeningPorts() }),
    killProcess: async ({ sessionId, taskId, pid, port }) => {
      d.requireSession(sessionId);
      // The same checks, and the same words, as the model's kill_shell (the bad-input table lives there).
      const parsed = KillShellInput.safeParse({ task_id: taskId, pid, port });
      if (!parsed.success) {
        const message = parsed.error.issues[0]!.message.replaceAll('task_id', 'taskId');
        throw new DroverError('invalid_input', `Invalid input: ${message}`);
      }
      // The person (or a script with their token) asked: nothing is left to ask them.
      const outcome = await d.kill.execute(parsed.data as never, {
        sessionId,
        cwd: d.workingDir,
        signal: new AbortController().signal,
        permit: () => Promise.resolve({ allowed: true, reason: 'asked through the API' }),
      });
      const display = outcome.display as Extract<ToolDisplay, { kind: 'killed' }>;
      const { kind: _kind, ...facts } = display;
      return { ...facts, message: outcome.text };
    },
  };
}
