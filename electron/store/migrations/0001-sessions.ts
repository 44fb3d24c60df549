import type { Migration } from './index.js';

export const m0001Sessions: Migration = {
  version: 1,
  name: 'sessions',
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        id         TEXT PRIMARY KEY,
        title      TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX sessions_updated ON sessions (updated_at DESC);
    `);
  },
};
