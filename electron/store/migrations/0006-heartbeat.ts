import type { Migration } from './index.js';

export const m0006Heartbeat: Migration = {
  version: 6,
  name: 'heartbeat',
  up(db) {
    db.exec(`
      -- The last time a running Drover saw the task alive (written at most once a minute per task).
      -- A task whose Drover died is settled as lost at the next start, ended at this time, so its
      -- elapsed time stops where Drover last knew it, not where the next start finds it.
      ALTER TABLE tasks ADD COLUMN seen_at INTEGER;
      -- Why its log stopped growing (the disk filled up), and how much output it missed; null when whole.
      ALTER TABLE tasks ADD COLUMN log_note TEXT;
    `);
  },
};
