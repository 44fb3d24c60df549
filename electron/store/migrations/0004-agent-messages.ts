import type { Migration } from './index.js';

export const m0004AgentMessages: Migration = {
  version: 4,
  name: 'agent-messages',
  up(db) {
    db.exec(`
      ALTER TABLE messages ADD COLUMN tool_name TEXT;
      ALTER TABLE messages ADD COLUMN tool_call_id TEXT;
      ALTER TABLE messages ADD COLUMN tool_args TEXT;
      ALTER TABLE messages ADD COLUMN tool_result TEXT;
      ALTER TABLE messages ADD COLUMN status TEXT NOT NULL DEFAULT 'done';
      ALTER TABLE messages ADD COLUMN automated INTEGER NOT NULL DEFAULT 0;
    `);
  },
};
