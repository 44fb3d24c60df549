import type { Migration } from './index.js';

export const m0007ToolHistory: Migration = {
  version: 7,
  name: 'tool-history',
  up(db) {
    db.exec(`
      -- A tool row keeps what it showed of its task (status, exit, times, the newest output) as JSON,
      -- so Clear in the tasks panel or a removed log never empties the transcript. Older rows stay null.
      ALTER TABLE messages ADD COLUMN task_snapshot TEXT;
      -- The person's words for a call's result, beside the model's own text in tool_result.
      ALTER TABLE messages ADD COLUMN tool_display TEXT;
      CREATE INDEX messages_by_task ON messages (session_id, task_id) WHERE task_id IS NOT NULL;
    `);
  },
};
