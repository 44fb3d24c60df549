import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import {
  MessageScheduleSchema,
  MessageStatusSchema,
  RoleSchema,
  TaskSnapshotSchema,
  ToolDisplaySchema,
  type Message,
  type MessageSchedule,
  type MessageStatus,
  type Role,
  type TaskSnapshot,
  type ToolDisplay,
} from '../../shared/schemas/message.js';
import { parseRow, TimestampSchema } from './rows.js';

const MessageRowSchema = z.object({
  id: z.number(),
  session_id: z.string(),
  role: RoleSchema,
  text: z.string(),
  task_id: z.string().nullable(),
  tool_name: z.string().nullable(),
  tool_call_id: z.string().nullable(),
  tool_args: z.string().nullable(),
  tool_result: z.string().nullable(),
  tool_display: z.string().nullable(),
  task_snapshot: z.string().nullable(),
  status: MessageStatusSchema,
  automated: z.number(),
  schedule: z.string().nullable(),
  created_at: TimestampSchema,
});

const COLUMNS =
  'id, session_id, role, text, task_id, tool_name, tool_call_id, tool_args, tool_result, tool_display, task_snapshot, status, automated, schedule, created_at';

/** A damaged JSON column is named, like a damaged row: the transcript never shows a silent gap. */
function parseJsonColumn<S extends z.ZodType>(schema: S, what: string, raw: string | null): z.output<S> | null {
  if (raw === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error(`The stored ${what} is damaged (not JSON)`);
  }
  return parseRow(schema, what, value);
}

function toMessage(row: unknown): Message {
  const r = parseRow(MessageRowSchema, 'message', row);
  let toolArgs: unknown = null;
  if (r.tool_args !== null) {
    try {
      toolArgs = JSON.parse(r.tool_args);
    } catch {
      toolArgs = r.tool_args;
    }
  }
  return {
    id: r.id,
    sessionId: r.session_id,
    role: r.role,
    text: r.text,
    taskId: r.task_id,
    toolName: r.tool_name,
    toolCallId: r.tool_call_id,
    toolArgs,
    toolResult: r.tool_result,
    display: parseJsonColumn(ToolDisplaySchema, `result wording of message ${r.id}`, r.tool_display),
    taskSnapshot: parseJsonColumn(TaskSnapshotSchema, `task snapshot of message ${r.id}`, r.task_snapshot),
    status: r.status,
    automated: r.automated === 1,
    schedule: parseJsonColumn(MessageScheduleSchema, `schedule of message ${r.id}`, r.schedule),
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export interface NewMessage {
  sessionId: string;
  role: Role;
  text: string;
  now: number;
  taskId?: string | null;
  toolName?: string | null;
  toolCallId?: string | null;
  toolArgs?: unknown;
  toolResult?: string | null;
  display?: ToolDisplay | null;
  status?: MessageStatus;
  automated?: boolean;
  schedule?: MessageSchedule | null;
}

export interface MessagePatch {
  text?: string;
  taskId?: string | null;
  toolResult?: string | null;
  display?: ToolDisplay | null;
  taskSnapshot?: TaskSnapshot | null;
  status?: MessageStatus;
}

export class MessagesRepo {
  readonly #list: Statement;
  readonly #insert: Statement;
  readonly #get: Statement;
  readonly #update: Statement;
  readonly #settle: Statement;
  readonly #byTask: Statement;
  readonly #page: Statement;

  constructor(db: Database) {
    this.#settle = db.prepare(
      "UPDATE messages SET status = 'cancelled' WHERE status IN ('streaming', 'running', 'waiting')",
    );
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE session_id = ? ORDER BY id`);
    // Served by the (session_id, id) index: the newest `limit` before an id, whatever the transcript's length.
    this.#page = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`);
    this.#insert = db.prepare(
      `INSERT INTO messages (session_id, role, text, task_id, tool_name, tool_call_id, tool_args, tool_result, tool_display, status, automated, schedule, created_at)
       VALUES (@session_id, @role, @text, @task_id, @tool_name, @tool_call_id, @tool_args, @tool_result, @tool_display, @status, @automated, @schedule, @created_at)`,
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE id = ?`);
    this.#byTask = db.prepare(
      `SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND task_id = ? AND role = 'tool' ORDER BY id`,
    );
    this.#update = db.prepare(
      `UPDATE messages SET text = @text, task_id = @task_id, tool_result = @tool_result, tool_display = @tool_display,
       task_snapshot = @task_snapshot, status = @status WHERE id = @id`,
    );
  }

  /** Rows an earlier run left mid-turn (it stopped or crashed): they will never finish. */
  settleInterrupted(): number {
    return this.#settle.run().changes;
  }

  /**
   * A transcript with a damaged row is refused whole (an error naming the row), rather than
   * shown with a silent gap that the person or the model would read as the real history.
   */
  list(sessionId: string): Message[] {
    return this.#list.all(sessionId).map(toMessage);
  }

  /** The newest `limit` messages older than `beforeId` (all when absent), oldest first. */
  page(sessionId: string, limit: number, beforeId?: number): Message[] {
    return this.#page
      .all(sessionId, beforeId ?? Number.MAX_SAFE_INTEGER, limit)
      .map(toMessage)
      .reverse();
  }

  /** The tool rows of a session that stand for or concern a task, oldest first. */
  byTask(sessionId: string, taskId: string): Message[] {
    return this.#byTask.all(sessionId, taskId).map(toMessage);
  }

  get(id: number): Message | undefined {
    const row = this.#get.get(id);
    return row === undefined ? undefined : toMessage(row);
  }

  insert(message: NewMessage): Message {
    const { lastInsertRowid } = this.#insert.run({
      session_id: message.sessionId,
      role: message.role,
      text: message.text,
      task_id: message.taskId ?? null,
      tool_name: message.toolName ?? null,
      tool_call_id: message.toolCallId ?? null,
      tool_args: message.toolArgs === undefined ? null : JSON.stringify(message.toolArgs),
      tool_result: message.toolResult ?? null,
      tool_display: jsonOrNull(message.display ?? null),
      status: message.status ?? 'done',
      automated: message.automated ? 1 : 0,
      schedule: jsonOrNull(message.schedule ?? null),
      created_at: message.now,
    });
    return toMessage(this.#get.get(lastInsertRowid));
  }

  update(id: number, patch: MessagePatch): Message {
    const current = this.get(id);
    if (!current) throw new Error(`No message ${id}`);
    this.#update.run({
      id,
      text: patch.text ?? current.text,
      task_id: patch.taskId === undefined ? current.taskId : patch.taskId,
      tool_result: patch.toolResult === undefined ? current.toolResult : patch.toolResult,
      tool_display: jsonOrNull(patch.display === undefined ? current.display : patch.display),
      task_snapshot: jsonOrNull(patch.taskSnapshot === undefined ? current.taskSnapshot : patch.taskSnapshot),
      status: patch.status ?? current.status,
    });
    return this.get(id)!;
  }
}

function jsonOrNull(value: TaskSnapshot | ToolDisplay | MessageSchedule | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
