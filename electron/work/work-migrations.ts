import type { Migration } from '../store/migrations/index.js';

/**
 * The work ledger's own schema, in its own file (work.sqlite) beside Drover's database: several
 * processes open it at once, which Drover's database (one writer, a folder lock) never allows.
 * Numbered from 1 in `PRAGMA user_version`, like Drover's database; never edit one that shipped.
 */
const m0001Ledger: Migration = {
  version: 1,
  name: 'ledger',
  up(db) {
    db.exec(`
      -- One row per list: the id its next item gets. It only ever grows, so an id is never given
      -- twice, not even after its item was deleted. revision grows with every change to the list.
      CREATE TABLE work_lists (
        list_id    TEXT PRIMARY KEY,
        next_id    INTEGER NOT NULL DEFAULT 1 CHECK (next_id > 0),
        revision   INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      ) STRICT;

      -- Live items only: a deleted item's row is removed (its id stays spent in work_lists).
      CREATE TABLE work_items (
        list_id        TEXT NOT NULL REFERENCES work_lists (list_id) ON DELETE CASCADE,
        id             INTEGER NOT NULL CHECK (id > 0),
        subject        TEXT NOT NULL,
        description    TEXT NOT NULL DEFAULT '',
        active_form    TEXT,
        status         TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
        owner          TEXT,
        metadata       TEXT NOT NULL DEFAULT '{}',
        blocked_reason TEXT,
        created_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL,
        PRIMARY KEY (list_id, id)
      ) STRICT, WITHOUT ROWID;

      -- One row per dependency: blocker must be completed before blocked. Both directions
      -- (blockedBy and blocks) are read from this one row, so they can never disagree.
      CREATE TABLE work_edges (
        list_id TEXT NOT NULL,
        blocker INTEGER NOT NULL,
        blocked INTEGER NOT NULL,
        PRIMARY KEY (list_id, blocker, blocked),
        CHECK (blocker <> blocked),
        FOREIGN KEY (list_id, blocker) REFERENCES work_items (list_id, id) ON DELETE CASCADE,
        FOREIGN KEY (list_id, blocked) REFERENCES work_items (list_id, id) ON DELETE CASCADE
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX work_edges_by_blocked ON work_edges (list_id, blocked);
    `);
  },
};

export const workMigrations: readonly Migration[] = [m0001Ledger];
