import type { Migration } from './index.js';

export const m0011SessionMode: Migration = {
  version: 11,
  name: 'session-mode',
  up(db) {
    db.exec(`
      -- Plan mode (issue #15): 'agent' runs commands under the grants; 'plan' runs only read-only ones
      -- without asking. Only the person switches it; it survives restarts with the session.
      ALTER TABLE sessions ADD COLUMN mode TEXT NOT NULL DEFAULT 'agent' CHECK (mode IN ('agent', 'plan'));
    `);
  },
};
