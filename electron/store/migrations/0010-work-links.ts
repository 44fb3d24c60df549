import type { Migration } from './index.js';

export const m0010WorkLinks: Migration = {
  version: 10,
  name: 'work-links',
  up(db) {
    db.exec(`
      -- A task started for a work item (work_item_id on run_command or monitor_command): its list and id,
      -- so a failure marks the item blocked and the item can name the tasks serving it. Null otherwise.
      ALTER TABLE tasks ADD COLUMN work_list_id TEXT;
      ALTER TABLE tasks ADD COLUMN work_item_id INTEGER;
    `);
  },
};
