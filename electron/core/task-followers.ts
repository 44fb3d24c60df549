import type { EventBus } from './event-bus.js';
import type { DroverContract } from '../../shared/contract.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { AgentService } from '../agent/agent-service.js';
import { MonitorPings } from '../agent/monitor-pings.js';
import type { UnattendedBudget } from '../agent/unattended-budget.js';
import { WakeScheduler } from '../agent/wakes.js';
import type { TaskPool } from '../pool/pool.js';
import type { WorkLedger } from '../work/work-ledger.js';
import { WorkLinks } from '../work/work-links.js';

/**
 * What a task's change sets off beyond its own row: the work item linked to it moves, the agent
 * is woken when it ends, and a scheduled monitor gets its first ping. One subscription to the bus.
 */
export interface TaskFollowers {
  readonly wakes: WakeScheduler;
  dispose(): void;
}

export function followTasks(deps: {
  bus: EventBus<DroverContract>;
  agent: AgentService;
  budget: UnattendedBudget;
  pool: TaskPool;
  ledger: () => WorkLedger;
  workChanged: (listId: string) => void;
  warn: (message: string) => void;
}): TaskFollowers {
  const { agent, budget, pool, warn } = deps;
  const wakes: WakeScheduler = new WakeScheduler({
    wake: (sessionId, text, notices) =>
      void agent.submit(sessionId, text, { automated: true, refused: () => wakes.putBack(sessionId, notices) }).done,
    // With the budget spent, wake-ups wait, gathered, until it opens again.
    allowed: (sessionId) => budget.allows(sessionId),
    shuttingDown: () => pool.draining || agent.disposed,
    log: warn,
  });
  // A scheduled monitor's first wake: its check is due.
  const pings = new MonitorPings({
    notePinged: (sessionId, taskId) => pool.notePinged(sessionId, taskId),
    row: (sessionId, taskId) => (pool.has(sessionId, taskId) ? pool.row(sessionId, taskId) : null),
    ping: (row) => wakes.ping(row),
  });
  const links = new WorkLinks({ ledger: deps.ledger, changed: deps.workChanged, log: warn });
  const stop = deps.bus.subscribe((name, payload) => {
    if (name !== 'taskUpdated') return;
    const { task } = payload as { task: TaskRow };
    links.onTaskChanged(task);
    wakes.onTaskChanged(task);
    pings.onTaskChanged(task);
  });
  return {
    wakes,
    dispose() {
      stop();
      wakes.dispose();
      pings.dispose();
    },
  };
}
