import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import { parseRow, readableRows, reportToConsole, TimestampSchema, type UnreadableRowReport } from './rows.js';
import { SessionModeSchema, type Session, type SessionMode } from '../../shared/schemas/session.js';

const SessionRowSchema = z.object({
  id: z.string(),
  title: z.string(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  message_count: z.number(),
  mode: SessionModeSchema,
});

/** Rows are parsed on the way out: a damaged row is an error naming it, never a wrong value. */
function toSession(row: unknown): Session {
  const r = parseRow(SessionRowSchema, 'session', row);
  return {
    id: r.id,
    title: r.title,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    messageCount: r.message_count,
    mode: r.mode,
  };
}

const SELECT = `SELECT s.id, s.title, s.created_at, s.updated_at, s.mode,
  (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS message_count
  FROM sessions s`;

export class SessionsRepo {
  readonly #list: Statement;
  readonly #get: Statement;
  readonly #exists: Statement;
  readonly #insert: Statement;
  readonly #rename: Statement;
  readonly #touch: Statement;
  readonly #setMode: Statement;
  readonly #delete: Statement;
  readonly #report: UnreadableRowReport;

  /** `report` hears of rows the list leaves out because they no longer fit (named by id). */
  constructor(db: Database, report: UnreadableRowReport = reportToConsole) {
    this.#report = report;
    this.#list = db.prepare(`${SELECT} ORDER BY s.updated_at DESC, s.rowid DESC`);
    this.#get = db.prepare(`${SELECT} WHERE s.id = ?`);
    this.#exists = db.prepare('SELECT 1 FROM sessions WHERE id = ?').pluck();
    this.#insert = db.prepare('INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)');
    this.#rename = db.prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?');
    this.#touch = db.prepare('UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?');
    this.#delete = db.prepare('DELETE FROM sessions WHERE id = ?');
    this.#setMode = db.prepare('UPDATE sessions SET mode = ? WHERE id = ?');
  }

  list(): Session[] {
    // One damaged session must not hide every other one; opening it still says what is wrong.
    return readableRows(this.#list.all(), toSession, this.#report);
  }

  get(id: string): Session | undefined {
    const row = this.#get.get(id);
    return row === undefined ? undefined : toSession(row);
  }

  /**
   * Whether the session is stored, without reading it: `get` counts the session's messages, which
   * costs time in proportion to its history (3.7 ms for 100,000 messages here), and most requests
   * only check that the session they name exists.
   */
  exists(id: string): boolean {
    return this.#exists.get(id) !== undefined;
  }

  insert(id: string, title: string, now: number): void {
    this.#insert.run(id, title, now, now);
  }

  rename(id: string, title: string, now: number): boolean {
    return this.#rename.run(title, now, id).changes > 0;
  }

  touch(id: string, now: number): void {
    this.#touch.run(now, id);
  }

  /** Not a change of content: the session keeps its place in the list. */
  setMode(id: string, mode: SessionMode): boolean {
    return this.#setMode.run(mode, id).changes > 0;
  }

  delete(id: string): boolean {
    return this.#delete.run(id).changes > 0;
  }
}
