import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import { notFound } from '../../shared/ipc/errors.js';
import { TodoItemSchema } from '../../shared/schemas/todos.js';
import type { ChecklistState, ClosedPlan } from '../checklist/checklist-state.js';
import { TimestampSchema } from './rows.js';
import { sqliteProblem } from './sqlite-errors.js';

/** One session's stored checklist as read: a damaged part reads as empty and is named in `problems`. */
export interface StoredChecklist {
  readonly state: ChecklistState;
  /** Milliseconds since 1970 of the last change; null when the session never had a checklist. */
  readonly updatedAt: number | null;
  /** What could not be read, one sentence each (the row is kept as it is until the next change replaces it). */
  readonly problems: readonly string[];
}

/** Where the checklist engine keeps its rows: a seam so the rules can be tested over any store. */
export interface ChecklistStore {
  /** Undefined when there is no such session. */
  read(sessionId: string): StoredChecklist | undefined;
  save(sessionId: string, state: ChecklistState, updatedAt: number): void;
  /** Runs `fn` as one transaction: a read and the write it decides are never split. */
  transaction<T>(fn: () => T): T;
}

const EMPTY_CHECKLIST: ChecklistState = {
  items: [],
  removedByPerson: [],
  completedByPerson: [],
  addedByPerson: [],
  closedPlan: null,
  notesForModel: [],
};

const NamesSchema = z.array(z.string());
const ItemsSchema = z.array(TodoItemSchema);
const ClosedPlanSchema = z.object({ removed: NamesSchema, completed: NamesSchema }).nullable();

/** The joined row: every checklist column is null when the session has no checklist row yet. */
const RowSchema = z.object({
  id: z.string(),
  items: z.string().nullable(),
  person_removed: z.string().nullable(),
  person_completed: z.string().nullable(),
  person_added: z.string().nullable(),
  closed_plan: z.string().nullable(),
  model_notes: z.string().nullable(),
  updated_at: TimestampSchema.nullable(),
});

function damaged(sessionId: string, name: string, why: string): string {
  return `The checklist of session ${sessionId}: the ${name} could not be read (${why}) and count as empty until the next change.`;
}

/** Parses one JSON column; a column that is not JSON or does not fit reads as `fallback` and is named. */
function column<T>(
  schema: z.ZodType<T>,
  text: string | null,
  fallback: T,
  name: string,
  sessionId: string,
  problems: string[],
): T {
  if (text === null) return fallback;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    problems.push(damaged(sessionId, name, 'not JSON'));
    return fallback;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  problems.push(
    damaged(sessionId, name, issue ? `at ${issue.path.join('.') || 'the top'}: ${issue.message}` : 'invalid'),
  );
  return fallback;
}

function toStored(raw: unknown, sessionId: string): StoredChecklist {
  const parsed = RowSchema.safeParse(raw);
  if (!parsed.success)
    return {
      state: EMPTY_CHECKLIST,
      updatedAt: null,
      problems: [damaged(sessionId, 'row', 'it does not fit the table')],
    };
  const row = parsed.data;
  if (row.items === null) return { state: EMPTY_CHECKLIST, updatedAt: row.updated_at, problems: [] };
  const problems: string[] = [];
  const items = column(ItemsSchema, row.items, null, 'items', sessionId, problems);
  // The person's edits mean nothing without the items they apply to: damaged items reset them all.
  if (items === null) return { state: EMPTY_CHECKLIST, updatedAt: row.updated_at, problems };
  const names = (text: string | null, name: string) => column(NamesSchema, text, [], name, sessionId, problems);
  const state: ChecklistState = {
    items,
    removedByPerson: names(row.person_removed, "person's removals"),
    completedByPerson: names(row.person_completed, "person's completions"),
    addedByPerson: names(row.person_added, "person's additions"),
    closedPlan: column<ClosedPlan | null>(ClosedPlanSchema, row.closed_plan, null, 'closed plan', sessionId, problems),
    notesForModel: names(row.model_notes, 'notes for the model'),
  };
  return { state, updatedAt: row.updated_at, problems };
}

/** The session_checklists table (migration 0009). */
export class ChecklistRepo implements ChecklistStore {
  readonly #db: Database;
  readonly #read: Statement;
  readonly #save: Statement;

  constructor(db: Database) {
    this.#db = db;
    this.#read = db.prepare(`SELECT s.id, c.items, c.person_removed, c.person_completed, c.person_added,
      c.closed_plan, c.model_notes, c.updated_at
      FROM sessions s LEFT JOIN session_checklists c ON c.session_id = s.id WHERE s.id = ?`);
    this.#save = db.prepare(`INSERT INTO session_checklists
      (session_id, items, person_removed, person_completed, person_added, closed_plan, model_notes, updated_at)
      VALUES (@session_id, @items, @person_removed, @person_completed, @person_added, @closed_plan, @model_notes, @updated_at)
      ON CONFLICT (session_id) DO UPDATE SET items = excluded.items, person_removed = excluded.person_removed,
        person_completed = excluded.person_completed, person_added = excluded.person_added,
        closed_plan = excluded.closed_plan, model_notes = excluded.model_notes, updated_at = excluded.updated_at`);
  }

  read(sessionId: string): StoredChecklist | undefined {
    const row = this.#read.get(sessionId);
    return row === undefined ? undefined : toStored(row, sessionId);
  }

  save(sessionId: string, state: ChecklistState, updatedAt: number): void {
    try {
      this.#save.run({
        session_id: sessionId,
        items: JSON.stringify(state.items),
        person_removed: JSON.stringify(state.removedByPerson),
        person_completed: JSON.stringify(state.completedByPerson),
        person_added: JSON.stringify(state.addedByPerson),
        closed_plan: state.closedPlan ? JSON.stringify(state.closedPlan) : null,
        model_notes: JSON.stringify(state.notesForModel),
        updated_at: updatedAt,
      });
    } catch (error) {
      // The session was deleted between the read and this write (or never existed).
      if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw notFound('session', sessionId);
      throw sqliteProblem(error, this.#db.name) ?? error;
    }
  }

  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }
}
