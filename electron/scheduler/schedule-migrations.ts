import type { Migration } from '../store/migrations/index.js';

/**
 * The scheduler's own schema, in scheduler.sqlite beside Drover's database: durable jobs are
 * machine-level and leased between processes, so this file is opened like the work ledger (WAL,
 * several processes). Numbered from 1 in `PRAGMA user_version`; never edit one that shipped.
 * Times are milliseconds since the epoch.
 */
const m0001Schedules: Migration = {
  version: 1,
  name: 'schedules',
  up(db) {
    db.exec(`
      CREATE TABLE schedules (
        id                 TEXT PRIMARY KEY CHECK (length(id) = 8),
        -- The conversation it belongs to; null for a durable job.
        session_id         TEXT,
        kind               TEXT NOT NULL CHECK (kind IN ('cron', 'loop', 'self_paced')),
        -- Null for a self-paced loop.
        cron               TEXT,
        -- Empty: the default maintenance task (loop.md), read again at every run.
        prompt             TEXT NOT NULL,
        label              TEXT NOT NULL,
        recurring          INTEGER NOT NULL CHECK (recurring IN (0, 1)),
        durable            INTEGER NOT NULL CHECK (durable IN (0, 1)),
        created_at         INTEGER NOT NULL,
        expires_at         INTEGER,
        -- Null while a self-paced iteration has yet to choose its next check.
        next_fire_at       INTEGER,
        -- Late (recurring) or early (a one-shot at :00 or :30) offset, derived from the id once.
        jitter_ms          INTEGER NOT NULL DEFAULT 0,
        final_fire         INTEGER NOT NULL DEFAULT 0 CHECK (final_fire IN (0, 1)),
        last_fired_at      INTEGER,
        last_result        TEXT,
        fire_count         INTEGER NOT NULL DEFAULT 0,
        paused             INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
        -- Self-paced: the pending wake is the one safety check; why the iteration chose its delay.
        safety_check       INTEGER NOT NULL DEFAULT 0 CHECK (safety_check IN (0, 1)),
        next_reason        TEXT,
        -- Durable: the session its runs go to (made at the first run), who fires it now, and until when.
        run_session_id     TEXT,
        lease_holder       TEXT,
        lease_until        INTEGER,
        needs_confirmation INTEGER NOT NULL DEFAULT 0 CHECK (needs_confirmation IN (0, 1)),
        CHECK ((session_id IS NULL) = (durable = 1))
      ) STRICT;
      CREATE INDEX schedules_by_session ON schedules (session_id);
      CREATE INDEX schedules_by_time ON schedules (next_fire_at);
    `);
  },
};

export const scheduleMigrations: readonly Migration[] = [m0001Schedules];
