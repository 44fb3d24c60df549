import type { Migration } from './index.js';

export const m0016TaskSandbox: Migration = {
  version: 16,
  name: 'task-sandbox',
  up(db) {
    db.exec(`
      -- The sandbox (issue #19): 1 when the task ran inside the session's sandbox; what the
      -- sandbox refused it (paths, hosts) as a JSON list, null when nothing was.
      ALTER TABLE tasks ADD COLUMN sandboxed INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tasks ADD COLUMN sandbox_refusals TEXT;
    `);
  },
};
