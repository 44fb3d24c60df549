import type { Migration } from './index.js';

export const m0009Checklist: Migration = {
  version: 9,
  name: 'checklist',
  up(db) {
    db.exec(`
      -- The session checklist (todo_write, issue #15): one row per session that ever had one.
      -- Every list column holds JSON, parsed (and checked) on the way out; a cleared checklist
      -- is a row with empty lists, so "cleared" and "never written" stay apart (updated_at).
      CREATE TABLE session_checklists (
        session_id       TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        -- The current items: [{content, status, activeForm}], in order.
        items            TEXT NOT NULL DEFAULT '[]',
        -- The person's sticky edits to the current plan (item contents), reset when it clears.
        person_removed   TEXT NOT NULL DEFAULT '[]',
        person_completed TEXT NOT NULL DEFAULT '[]',
        person_added     TEXT NOT NULL DEFAULT '[]',
        -- The plan the person just closed ({removed, completed}), kept for the model's next write
        -- only, so a stale resend cannot bring a finished plan back; null otherwise.
        closed_plan      TEXT,
        -- What the model has yet to be told of the person's edits (a JSON array of notes).
        model_notes      TEXT NOT NULL DEFAULT '[]',
        updated_at       INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
