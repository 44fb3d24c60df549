import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import { parseRow } from './rows.js';
import { RoleSchema, type Message, type Role } from '../../shared/schemas/message.js';

const MessageRowSchema = z.object({
  id: z.number(),
  session_id: z.string(),
  role: RoleSchema,
  text: z.string(),
  task_id: z.string().nullable(),
  created_at: z.number(),
});

function toMessage(row: unknown): Message {
  const r = parseRow(MessageRowSchema, 'message', row);
  return {
    id: r.id,
    sessionId: r.session_id,
    role: r.role,
    text: r.text,
    taskId: r.task_id,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export class MessagesRepo {
  readonly #list: Statement;
  readonly #insert: Statement;
  readonly #get: Statement;

  constructor(db: Database) {
    this.#list = db.prepare('SELECT id, session_id, role, text, task_id, created_at FROM messages WHERE session_id = ? ORDER BY id');
    this.#insert = db.prepare('INSERT INTO messages (session_id, role, text, task_id, created_at) VALUES (?, ?, ?, ?, ?)');
    this.#get = db.prepare('SELECT id, session_id, role, text, task_id, created_at FROM messages WHERE id = ?');
  }

  list(sessionId: string): Message[] {
    return this.#list.all(sessionId).map(toMessage);
  }

  insert(sessionId: string, role: Role, text: string, now: number, taskId: string | null = null): Message {
    const { lastInsertRowid } = this.#insert.run(sessionId, role, text, taskId, now);
    return toMessage(this.#get.get(lastInsertRowid));
  }
}
