import type { Migration } from './index.js';

export const m0003Tasks: Migration = {
  version: 3,
  name: 'tasks',
  up(db) {
    db.exec(`
      CREATE TABLE tasks (
        id               TEXT PRIMARY KEY,
        seq              INTEGER NOT NULL UNIQUE,
        session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        kind             TEXT NOT NULL,
        command          TEXT NOT NULL,
        cwd              TEXT NOT NULL,
        status           TEXT NOT NULL,
        exit_code        INTEGER,
        signal           TEXT,
        exit_note        TEXT,
        error            TEXT,
        pid              INTEGER,
        pgid             INTEGER,
        process_start    TEXT,
        boot_id          TEXT,
        run_id           TEXT NOT NULL,
        queued_at        INTEGER NOT NULL,
        started_at       INTEGER,
        ended_at         INTEGER,
        expected_seconds INTEGER,
        timeout_seconds  INTEGER NOT NULL,
        notify           INTEGER NOT NULL,
        adopted          INTEGER NOT NULL,
        foreground       INTEGER NOT NULL,
        log_path         TEXT NOT NULL
      ) STRICT;
      CREATE INDEX tasks_session ON tasks (session_id, seq);

      -- Counters that must never go backwards, even when rows are cleared.
      CREATE TABLE counters (
        name  TEXT PRIMARY KEY,
        value INTEGER NOT NULL
      ) STRICT;

      -- A transcript row may stand for a task (the operator's shell line, later the model's tool call).
      ALTER TABLE messages ADD COLUMN task_id TEXT;
    `);
  },
};
