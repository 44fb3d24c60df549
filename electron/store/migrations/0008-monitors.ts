import type { Migration } from './index.js';

export const m0008Monitors: Migration = {
  version: 8,
  name: 'monitors',
  up(db) {
    db.exec(`
      -- Monitors: how they wake the agent ('scheduled', 'exit', 'none'), when their check is due
      -- (seconds after the start) and when the ping was sent. Null for other tasks.
      ALTER TABLE tasks ADD COLUMN notify_mode TEXT;
      ALTER TABLE tasks ADD COLUMN check_after_seconds INTEGER;
      ALTER TABLE tasks ADD COLUMN pinged_at INTEGER;
      -- Where the model's next delta read of the log starts (monitor_events), so it survives a restart.
      ALTER TABLE tasks ADD COLUMN event_offset INTEGER NOT NULL DEFAULT 0;
      -- Readiness: the declared check (JSON), when it held, and whether the agent is woken then.
      ALTER TABLE tasks ADD COLUMN ready_check TEXT;
      ALTER TABLE tasks ADD COLUMN ready_at INTEGER;
      ALTER TABLE tasks ADD COLUMN notify_ready INTEGER NOT NULL DEFAULT 0;
    `);
  },
};
