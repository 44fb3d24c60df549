import type { Migration } from './index.js';

export const m0002Messages: Migration = {
  version: 2,
  name: 'messages',
  up(db) {
    db.exec(`
      CREATE TABLE messages (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        role       TEXT NOT NULL,
        text       TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX messages_session ON messages (session_id, id);
    `);
  },
};
