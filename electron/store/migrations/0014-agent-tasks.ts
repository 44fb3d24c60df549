import type { Migration } from './index.js';

export const m0014AgentTasks: Migration = {
  version: 14,
  name: 'agent-tasks',
  up(db) {
    db.exec(`
      -- Background sub-agents (issue #17). owner_task_id: the agent task whose run started this task
      -- (stopping the agent stops it); null for the session's own. agent_info: an agent task's
      -- definition and what it used of its limits, as JSON; null for other tasks.
      ALTER TABLE tasks ADD COLUMN owner_task_id TEXT;
      ALTER TABLE tasks ADD COLUMN agent_info TEXT;
    `);
  },
};
