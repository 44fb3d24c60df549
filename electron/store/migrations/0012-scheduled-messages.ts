import type { Migration } from './index.js';

export const m0012ScheduledMessages: Migration = {
  version: 12,
  name: 'scheduled-messages',
  up(db) {
    db.exec(`
      -- A message a schedule or loop sent (issue #16): {id, kind, label} as JSON, so the transcript
      -- says what ran it and the model reads its text fenced as task data. Null otherwise.
      ALTER TABLE messages ADD COLUMN schedule TEXT;
    `);
  },
};
