import type { AgentTool } from '../agent/tools.js';
import { backgroundTools, type WorkItemLink } from '../agent/tools.js';
import { workTools } from '../agent/work-tools.js';
import { todoTool } from '../agent/todo-tool.js';
import { sleepTool } from '../agent/sleep-tool.js';
import type { ForegroundHandovers } from '../pool/adoption.js';
import type { TaskPool } from '../pool/pool.js';
import type { Planning } from '../work/planning.js';
import type { SettingsService } from './settings.js';

/**
 * The session's tools, but for the agent tools (which are built over these): tasks and kill_shell,
 * the work ledger and the checklist, scheduling, and sleep.
 */
export function sessionTools(deps: {
  pool: TaskPool;
  handovers: ForegroundHandovers;
  planning: Planning;
  killTool: AgentTool;
  scheduling: AgentTool[];
  settings: SettingsService;
}): AgentTool[] {
  const { pool, planning } = deps;
  const link: WorkItemLink = planning.linkItem;
  return [
    ...backgroundTools(pool, deps.handovers, link),
    deps.killTool,
    ...workTools(
      () => planning.ledger.get(),
      planning.listOf,
      planning.changed,
      (sessionId, item) =>
        pool.list(sessionId).filter((row) => row.workItem?.listId === item.listId && row.workItem.itemId === item.id),
    ),
    todoTool(planning.checklists),
    ...deps.scheduling,
    sleepTool(() => deps.settings.current.sleep),
  ];
}
