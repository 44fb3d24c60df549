import type { Migration } from './index.js';

export const m0013UnattendedBudget: Migration = {
  version: 13,
  name: 'unattended-budget',
  up(db) {
    db.exec(`
      -- What a session's unattended turns (wake-ups, loop passes, scheduled prompts) have used of
      -- their budget since the person last resumed it (issue #16); no row: nothing used.
      CREATE TABLE session_budgets (
        session_id  TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        turns_used  INTEGER NOT NULL DEFAULT 0 CHECK (turns_used >= 0),
        tokens_used INTEGER NOT NULL DEFAULT 0 CHECK (tokens_used >= 0),
        -- The person was told at 80 %, and at 100 % (once each until a resume).
        warned      INTEGER NOT NULL DEFAULT 0 CHECK (warned IN (0, 1)),
        spent_told  INTEGER NOT NULL DEFAULT 0 CHECK (spent_told IN (0, 1)),
        updated_at  INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
