import type { Migration } from './index.js';

export const m0005Instance: Migration = {
  version: 5,
  name: 'instance',
  up(db) {
    db.exec(`
      -- Facts about this data folder: its random instance id, and who has it open.
      CREATE TABLE meta (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      -- How a task was contained, and the identity that proves its processes later:
      -- mark is VARIABLE=value in every process it starts (null on rows written before instance ids);
      -- cgroup is its cgroup's path inside the cgroup2 hierarchy; members (Windows) the processes
      -- seen in its job, as JSON [{pid, created}], so they can be proven after the leader exited.
      ALTER TABLE tasks ADD COLUMN mark TEXT;
      ALTER TABLE tasks ADD COLUMN containment TEXT;
      ALTER TABLE tasks ADD COLUMN containment_note TEXT;
      ALTER TABLE tasks ADD COLUMN cgroup TEXT;
      ALTER TABLE tasks ADD COLUMN members TEXT;
    `);
  },
};
