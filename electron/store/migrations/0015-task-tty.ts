import type { Migration } from './index.js';

export const m0015TaskTty: Migration = {
  version: 15,
  name: 'task-tty',
  up(db) {
    db.exec(`
      -- Pipe tasks (issue #18): 1 when the task runs in a pseudo-terminal, 0 on pipes. Every task
      -- before this had a terminal, and a rerun keeps what the task had.
      ALTER TABLE tasks ADD COLUMN tty INTEGER NOT NULL DEFAULT 1;
    `);
  },
};
