import type { Database, Statement } from 'better-sqlite3';
import type { WorkItemId } from '../../shared/schemas/work.js';
import type { RawWorkItemRow, StoredWorkStatus } from './work-rows.js';

/** The ledger's SQL, one prepared statement per question; the rules live in WorkLedger. */
export class WorkStore {
  readonly #ensureList: Statement<[string, number]>;
  readonly #listRow: Statement<[string], { next_id: number; revision: number }>;
  readonly #takeId: Statement<[string], { id: number }>;
  readonly #bump: Statement<[string]>;
  readonly #item: Statement<[string, number], RawWorkItemRow>;
  readonly #items: Statement<[string], RawWorkItemRow>;
  readonly #count: Statement<[string], { n: number }>;
  readonly #insert: Statement<[string, number, string, string, string | null, string | null, string, number, number]>;
  readonly #update: Statement<
    [string, string, string | null, StoredWorkStatus, string | null, string, string | null, number, string, number]
  >;
  readonly #setReason: Statement<[string | null, number, string, number]>;
  readonly #delete: Statement<[string, number]>;
  readonly #deleteEdges: Statement<[string, number, number]>;
  readonly #blockers: Statement<[string, number], { id: number; status: StoredWorkStatus }>;
  readonly #blocks: Statement<[string, number], { id: number }>;
  readonly #edges: Statement<[string], { blocker: number; blocked: number; blocker_status: string }>;
  readonly #addEdge: Statement<[string, number, number]>;
  readonly #removeEdge: Statement<[string, number, number]>;
  readonly #hasEdge: Statement<[string, number, number], { n: number }>;
  readonly #inProgress: Statement<[string, string | null], { id: number }>;

  constructor(db: Database) {
    this.#ensureList = db.prepare('INSERT OR IGNORE INTO work_lists (list_id, created_at) VALUES (?, ?)');
    this.#listRow = db.prepare('SELECT next_id, revision FROM work_lists WHERE list_id = ?');
    this.#takeId = db.prepare(
      'UPDATE work_lists SET next_id = next_id + 1 WHERE list_id = ? RETURNING next_id - 1 AS id',
    );
    this.#bump = db.prepare('UPDATE work_lists SET revision = revision + 1 WHERE list_id = ?');
    this.#item = db.prepare('SELECT * FROM work_items WHERE list_id = ? AND id = ?');
    this.#items = db.prepare('SELECT * FROM work_items WHERE list_id = ? ORDER BY id');
    this.#count = db.prepare('SELECT count(*) AS n FROM work_items WHERE list_id = ?');
    this.#insert = db.prepare(`
      INSERT INTO work_items (list_id, id, subject, description, active_form, owner, metadata, status, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`);
    this.#update = db.prepare(`
      UPDATE work_items SET subject = ?, description = ?, active_form = ?, status = ?, owner = ?, metadata = ?,
        blocked_reason = ?, updated_at = ?
      WHERE list_id = ? AND id = ?`);
    this.#setReason = db.prepare(
      'UPDATE work_items SET blocked_reason = ?, updated_at = ? WHERE list_id = ? AND id = ?',
    );
    this.#delete = db.prepare('DELETE FROM work_items WHERE list_id = ? AND id = ?');
    this.#deleteEdges = db.prepare('DELETE FROM work_edges WHERE list_id = ? AND (blocker = ? OR blocked = ?)');
    this.#blockers = db.prepare(`
      SELECT e.blocker AS id, i.status AS status FROM work_edges e
        JOIN work_items i ON i.list_id = e.list_id AND i.id = e.blocker
      WHERE e.list_id = ? AND e.blocked = ? ORDER BY e.blocker`);
    this.#blocks = db.prepare(
      'SELECT blocked AS id FROM work_edges WHERE list_id = ? AND blocker = ? ORDER BY blocked',
    );
    this.#edges = db.prepare(`
      SELECT e.blocker, e.blocked, i.status AS blocker_status FROM work_edges e
        JOIN work_items i ON i.list_id = e.list_id AND i.id = e.blocker
      WHERE e.list_id = ? ORDER BY e.blocked, e.blocker`);
    this.#addEdge = db.prepare('INSERT OR IGNORE INTO work_edges (list_id, blocker, blocked) VALUES (?, ?, ?)');
    this.#removeEdge = db.prepare('DELETE FROM work_edges WHERE list_id = ? AND blocker = ? AND blocked = ?');
    this.#hasEdge = db.prepare(
      'SELECT count(*) AS n FROM work_edges WHERE list_id = ? AND blocker = ? AND blocked = ?',
    );
    this.#inProgress = db.prepare(
      "SELECT id FROM work_items WHERE list_id = ? AND status = 'in_progress' AND owner IS ? ORDER BY id",
    );
  }

  /** The list's counters, or null for a list nothing was ever created in. */
  list(listId: string): { nextId: number; revision: number } | null {
    const row = this.#listRow.get(listId);
    return row ? { nextId: row.next_id, revision: row.revision } : null;
  }

  /** The next id of the list (made on first use); the counter only ever grows. */
  takeId(listId: string, now: number): WorkItemId {
    this.#ensureList.run(listId, now);
    return this.#takeId.get(listId)!.id;
  }

  /** Marks the list changed, for anyone polling its revision. */
  touch(listId: string): void {
    this.#bump.run(listId);
  }

  item(listId: string, id: WorkItemId): RawWorkItemRow | undefined {
    return this.#item.get(listId, id);
  }

  items(listId: string): RawWorkItemRow[] {
    return this.#items.all(listId);
  }

  count(listId: string): number {
    return this.#count.get(listId)!.n;
  }

  insert(
    listId: string,
    id: WorkItemId,
    fields: { subject: string; description: string; activeForm: string | null; owner: string | null },
    metadata: string,
    now: number,
  ): void {
    this.#insert.run(
      listId,
      id,
      fields.subject,
      fields.description,
      fields.activeForm,
      fields.owner,
      metadata,
      now,
      now,
    );
  }

  update(
    listId: string,
    id: WorkItemId,
    fields: {
      subject: string;
      description: string;
      activeForm: string | null;
      status: StoredWorkStatus;
      owner: string | null;
      blockedReason: string | null;
    },
    metadata: string,
    now: number,
  ): void {
    this.#update.run(
      fields.subject,
      fields.description,
      fields.activeForm,
      fields.status,
      fields.owner,
      metadata,
      fields.blockedReason,
      now,
      listId,
      id,
    );
  }

  setBlockedReason(listId: string, id: WorkItemId, reason: string | null, now: number): boolean {
    return this.#setReason.run(reason, now, listId, id).changes > 0;
  }

  /** Removes the item and every edge that names it (the foreign keys would too; this does not rely on them). */
  delete(listId: string, id: WorkItemId): void {
    this.#deleteEdges.run(listId, id, id);
    this.#delete.run(listId, id);
  }

  /** The item's blockers with their statuses. */
  blockers(listId: string, id: WorkItemId): { id: WorkItemId; status: StoredWorkStatus }[] {
    return this.#blockers.all(listId, id);
  }

  /** The items waiting for this one. */
  blocks(listId: string, id: WorkItemId): WorkItemId[] {
    return this.#blocks.all(listId, id).map((row) => row.id);
  }

  /** Every edge of the list with its blocker's stored status, for the list view. */
  edges(listId: string): { blocker: number; blocked: number; blocker_status: string }[] {
    return this.#edges.all(listId);
  }

  hasEdge(listId: string, blocker: WorkItemId, blocked: WorkItemId): boolean {
    return this.#hasEdge.get(listId, blocker, blocked)!.n > 0;
  }

  addEdge(listId: string, blocker: WorkItemId, blocked: WorkItemId): void {
    this.#addEdge.run(listId, blocker, blocked);
  }

  removeEdge(listId: string, blocker: WorkItemId, blocked: WorkItemId): void {
    this.#removeEdge.run(listId, blocker, blocked);
  }

  /** Ids of the items in progress for this owner (null: the unowned ones). */
  inProgress(listId: string, owner: string | null): WorkItemId[] {
    return this.#inProgress.all(listId, owner).map((row) => row.id);
  }
}
