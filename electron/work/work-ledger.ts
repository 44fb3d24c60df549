import type { Database, Transaction } from 'better-sqlite3';
import { DroverError } from '../../shared/ipc/errors.js';
import {
  WORK_BLOCKED_REASON_MAX,
  type TaskCreateArgs,
  type TaskUpdateArgs,
  type WorkChangeResult,
  type WorkItem,
  type WorkItemId,
  type WorkList,
  type WorkListEntry,
} from '../../shared/schemas/work.js';
import { reportToConsole, type UnreadableRowReport } from '../store/rows.js';
import { sqliteProblem } from '../store/sqlite-errors.js';
import { openWorkDatabase, type OpenWorkDatabaseOptions } from './work-db.js';
import { checkListId, conflict, invalidField, itemNotFound, unknownItemIn } from './work-errors.js';
import { checkMove, crowdedOwner, isBlocked, lateBlocker, link, nowUnblocked } from './work-rules.js';
import {
  mergeMetadata,
  metadataText,
  parseItemRow,
  salvagedDeletion,
  toWorkItem,
  type RawWorkItemRow,
  type StoredWorkStatus,
  type WorkItemRow,
} from './work-rows.js';
import { WorkStore } from './work-store.js';

/** Extra tries of a change that waited the whole busy timeout for another process's lock. */
export const WORK_BUSY_RETRIES = 2;

/** Live items one list may hold: a runaway loop meets a clear refusal long before the disk does. */
export const WORK_ITEMS_PER_LIST_MAX = 10_000;

export interface WorkLedgerOptions {
  /** Milliseconds since 1970; tests pass a fixed clock. */
  now?: () => number;
  /** Where unreadable stored rows are named (once each per process); the composition root's log. */
  report?: UnreadableRowReport;
}

/**
 * The work ledger (the spec's task ledger, issue #15) over work.sqlite. Every change is one
 * BEGIN IMMEDIATE transaction, so processes sharing the file queue for the write lock and each
 * change reads the state the previous one left: no update is ever lost, and a claim is a true
 * compare-and-set. Reads run in one deferred transaction, so a listing is one consistent snapshot.
 *
 * Rules where the spec is silent (issue #15 asks to enforce the workflow where it can):
 * - A deleted item's row and edges are removed; its id stays spent, and naming it says "was deleted".
 * - An item cannot be started or completed while a blocker is unfinished (conflict, naming them).
 * - A completed item may be reopened (to pending or in_progress), with a warning when items that
 *   wait for it are already under way; deleted is terminal.
 * - Claiming an item another owner holds is a conflict: release it (owner: null) first.
 * - Any status change clears blockedReason: the item has moved on from that failure.
 */
export class WorkLedger {
  readonly #db: Database;
  readonly #store: WorkStore;
  readonly #now: () => number;
  readonly #report: UnreadableRowReport;
  readonly #reported = new Set<string>();
  readonly #transaction: Transaction<(body: () => unknown) => unknown>;

  /** Opens `<dataDir>/work.sqlite` (creating it) for this process; close() closes it. */
  static open(dataDir: string, options: WorkLedgerOptions & OpenWorkDatabaseOptions = {}): WorkLedger {
    return new WorkLedger(openWorkDatabase(dataDir, options), options);
  }

  /** Takes over `db` (opened by openWorkDatabase): close() closes it. */
  constructor(db: Database, options: WorkLedgerOptions = {}) {
    this.#db = db;
    this.#store = new WorkStore(db);
    this.#now = options.now ?? Date.now;
    this.#report = options.report ?? reportToConsole;
    this.#transaction = db.transaction((body: () => unknown) => body());
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /** task_create: a new pending item with the next id of the list, its edges, owner and metadata. */
  create(listId: string, input: TaskCreateArgs): WorkChangeResult {
    checkListId(listId);
    return this.#write(() => {
      const now = this.#now();
      if (this.#store.count(listId) >= WORK_ITEMS_PER_LIST_MAX)
        throw conflict(
          'list_id',
          `List ${listId} already holds ${WORK_ITEMS_PER_LIST_MAX} items, the most one list may hold; delete finished ones first`,
        );
      const blockedBy = unique(input.blocked_by);
      const blocks = unique(input.blocks);
      for (const other of blockedBy) this.#requireLive(listId, other, 'blocked_by');
      for (const other of blocks) this.#requireLive(listId, other, 'blocks');
      const metadata = metadataText(mergeMetadata({}, input.metadata ?? {}));
      const id = this.#store.takeId(listId, now);
      const fields = {
        subject: input.subject,
        description: input.description ?? '',
        activeForm: input.active_form ?? null,
        owner: input.owner ?? null,
      };
      this.#store.insert(listId, id, fields, metadata, now);
      for (const blocker of blockedBy) link(this.#store, listId, blocker, id, 'blocked_by');
      for (const blocked of blocks) link(this.#store, listId, id, blocked, 'blocks');
      const warnings = blocks.flatMap((blocked) => lateBlocker(this.#store, listId, id, blocked));
      this.#store.touch(listId);
      return { item: this.#item(listId, id), unblocked: [], warnings };
    });
  }

  /** task_update: every named change at once, or none of them (one transaction). */
  update(listId: string, input: TaskUpdateArgs): WorkChangeResult {
    checkListId(listId);
    const named = Object.entries(input)
      .filter(([key, value]) => key !== 'task_id' && value !== undefined)
      .map(([key]) => key);
    if (named.length === 0) throw invalidField(undefined, 'name at least one field to change besides task_id');
    if (input.status === 'deleted') {
      const other = named.find((key) => key !== 'status');
      if (other) throw invalidField(other, 'cannot be changed in the call that deletes the item (status: deleted)');
      return this.delete(listId, input.task_id);
    }
    return this.#write(() => this.#applyUpdate(listId, input));
  }

  /** Deletion (task_update with status deleted, REST DELETE): terminal; the item leaves every dependency list. */
  delete(listId: string, id: WorkItemId): WorkChangeResult {
    checkListId(listId);
    return this.#write(() => {
      const raw = this.#store.item(listId, id);
      if (!raw) throw this.#notFound(listId, id);
      // A damaged row can still be deleted: that is how the person gets rid of it.
      const item = this.#deletedSnapshot(listId, raw);
      const wasOpen = raw.status !== 'completed';
      const waiting = this.#store.blocks(listId, id);
      this.#store.delete(listId, id);
      this.#store.touch(listId);
      const unblocked = wasOpen ? nowUnblocked(this.#store, listId, waiting) : [];
      return { item, unblocked, warnings: [] };
    });
  }

  /** task_list: one line per item (unresolved blockers only) and a tally over the whole list. */
  list(listId: string, options: { include_completed?: boolean } = {}): WorkList {
    checkListId(listId);
    const includeCompleted = options.include_completed ?? true;
    return this.#read(() => {
      const rows: WorkItemRow[] = [];
      const unreadable: WorkItemId[] = [];
      for (const raw of this.#store.items(listId)) {
        const row = this.#readable(listId, raw);
        if (row) rows.push(row);
        else if (typeof raw.id === 'number') unreadable.push(raw.id);
      }
      const open = new Map<WorkItemId, WorkItemId[]>();
      for (const edge of this.#store.edges(listId)) {
        if (edge.blocker_status === 'completed') continue;
        open.set(edge.blocked, [...(open.get(edge.blocked) ?? []), edge.blocker]);
      }
      const tally = { pending: 0, inProgress: 0, completed: 0, total: rows.length };
      const items: WorkListEntry[] = [];
      for (const row of rows) {
        if (row.status === 'pending') tally.pending += 1;
        else if (row.status === 'in_progress') tally.inProgress += 1;
        else tally.completed += 1;
        if (row.status === 'completed' && !includeCompleted) continue;
        items.push({
          id: row.id,
          status: row.status,
          subject: row.subject,
          owner: row.owner,
          blockedBy: open.get(row.id) ?? [],
          blockedReason: row.blocked_reason,
        });
      }
      return { listId, items, tally, unreadable, revision: this.#store.list(listId)?.revision ?? 0 };
    });
  }

  /** task_get: the full item, both edge directions included. */
  get(listId: string, id: WorkItemId): WorkItem {
    checkListId(listId);
    return this.#read(() => this.#item(listId, id));
  }

  /**
   * For Drover, not the model: why background work linked to the item failed (null clears it).
   * Returns false when the item is gone (deleted meanwhile), which is no error for the caller.
   */
  setBlockedReason(listId: string, id: WorkItemId, reason: string | null): boolean {
    checkListId(listId);
    let text = reason?.trim() || null;
    if (text && text.length > WORK_BLOCKED_REASON_MAX) text = `${text.slice(0, WORK_BLOCKED_REASON_MAX - 1)}…`;
    return this.#write(() => {
      const changed = this.#store.setBlockedReason(listId, id, text, this.#now());
      if (changed) this.#store.touch(listId);
      return changed;
    });
  }

  /** Grows with every change to the list from any process; 0 for a list never written. */
  revision(listId: string): number {
    checkListId(listId);
    return this.#read(() => this.#store.list(listId)?.revision ?? 0);
  }

  #applyUpdate(listId: string, input: TaskUpdateArgs): WorkChangeResult {
    const id = input.task_id;
    const row = this.#row(listId, id);
    const addBlockedBy = unique(input.add_blocked_by);
    const addBlocks = unique(input.add_blocks);
    const removeBlockedBy = unique(input.remove_blocked_by);
    const removeBlocks = unique(input.remove_blocks);
    refuseOverlap(addBlockedBy, removeBlockedBy, 'add_blocked_by', 'remove_blocked_by');
    refuseOverlap(addBlocks, removeBlocks, 'add_blocks', 'remove_blocks');
    for (const other of addBlockedBy) this.#requireLive(listId, other, 'add_blocked_by');
    for (const other of addBlocks) this.#requireLive(listId, other, 'add_blocks');
    for (const other of removeBlockedBy) this.#requireIssued(listId, other, 'remove_blocked_by');
    for (const other of removeBlocks) this.#requireIssued(listId, other, 'remove_blocks');

    let owner = row.owner;
    if (input.owner !== undefined) {
      if (input.owner !== null && row.owner !== null && row.owner !== input.owner)
        throw conflict(
          'owner',
          `Work item ${id} is owned by "${row.owner}"; it must be released (owner: null) before "${input.owner}" can claim it`,
        );
      owner = input.owner;
    }

    // Whoever this change may unblock: the item itself and every item on the far side of its `blocks`.
    const near = unique([id, ...this.#store.blocks(listId, id), ...addBlocks, ...removeBlocks]);
    const blockedBefore = new Set(near.filter((other) => isBlocked(this.#store, listId, other)));
    for (const other of removeBlockedBy) this.#store.removeEdge(listId, other, id);
    for (const other of removeBlocks) this.#store.removeEdge(listId, id, other);
    for (const other of addBlockedBy) link(this.#store, listId, other, id, 'add_blocked_by');
    for (const other of addBlocks) link(this.#store, listId, id, other, 'add_blocks');

    // update() has already routed `deleted` to delete().
    const status: StoredWorkStatus =
      input.status === undefined || input.status === 'deleted' ? row.status : input.status;
    const warnings = status === row.status ? [] : checkMove(this.#store, listId, id, row.status, status);
    const metadata = input.metadata
      ? metadataText(mergeMetadata(row.metadata, input.metadata))
      : JSON.stringify(row.metadata);
    const fields = {
      subject: input.subject ?? row.subject,
      description: input.description ?? row.description,
      activeForm: input.active_form === undefined ? row.active_form : input.active_form,
      status,
      owner,
      blockedReason: status === row.status ? row.blocked_reason : null,
    };
    this.#store.update(listId, id, fields, metadata, this.#now());
    // Read after the change: a blocker completed in this same call is no late blocker.
    warnings.push(...addBlocks.flatMap((blocked) => lateBlocker(this.#store, listId, id, blocked)));
    warnings.push(...addBlockedBy.flatMap((blocker) => lateBlocker(this.#store, listId, blocker, id)));
    if (status === 'in_progress' && (row.status !== 'in_progress' || owner !== row.owner)) {
      const crowded = crowdedOwner(this.#store, listId, owner);
      if (crowded) warnings.push(crowded);
    }
    this.#store.touch(listId);
    const unblocked = nowUnblocked(
      this.#store,
      listId,
      near.filter((other) => blockedBefore.has(other)),
    );
    return { item: this.#item(listId, id), unblocked, warnings };
  }

  #item(listId: string, id: WorkItemId): WorkItem {
    const row = this.#row(listId, id);
    return toWorkItem(row, {
      blockedBy: this.#store.blockers(listId, id).map((blocker) => blocker.id),
      blocks: this.#store.blocks(listId, id),
    });
  }

  /** The stored item, checked: missing says deleted or never given; damaged says so by name. */
  #row(listId: string, id: WorkItemId): WorkItemRow {
    const raw = this.#store.item(listId, id);
    if (!raw) throw this.#notFound(listId, id);
    return parseItemRow(listId, raw);
  }

  #readable(listId: string, raw: RawWorkItemRow): WorkItemRow | null {
    try {
      return parseItemRow(listId, raw);
    } catch (error) {
      if (!(error instanceof DroverError)) throw error;
      const key = `${listId}\u0000${String(raw.id)}`;
      if (!this.#reported.has(key)) {
        this.#reported.add(key);
        this.#report(error.message);
      }
      return null;
    }
  }

  #deletedSnapshot(listId: string, raw: RawWorkItemRow): WorkItem {
    const row = this.#readable(listId, raw);
    if (row) return toWorkItem(row, { blockedBy: [], blocks: [] }, 'deleted');
    return salvagedDeletion(listId, raw, this.#now());
  }

  #wasGiven(listId: string, id: WorkItemId): boolean {
    const counters = this.#store.list(listId);
    return counters !== null && id < counters.nextId;
  }

  #notFound(listId: string, id: WorkItemId): DroverError {
    return itemNotFound(listId, id, this.#wasGiven(listId, id));
  }

  #requireLive(listId: string, id: WorkItemId, field: string): void {
    if (!this.#store.item(listId, id)) throw unknownItemIn(field, listId, id, this.#wasGiven(listId, id));
  }

  /** Removing an edge to a deleted item is a no-op (the edge went with it); an id never given is a mistake. */
  #requireIssued(listId: string, id: WorkItemId, field: string): void {
    if (!this.#wasGiven(listId, id)) throw unknownItemIn(field, listId, id, false);
  }

  #write<T>(body: () => T): T {
    return this.#guard(() => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return this.#transaction.immediate(body) as T;
        } catch (error) {
          // SQLite's busy handler is not fair: under a burst of writers one may keep waking to a
          // held lock. The change is all-or-nothing, so starting it over is safe.
          if (attempt >= WORK_BUSY_RETRIES || !isBusy(error)) throw error;
        }
      }
    });
  }

  #read<T>(body: () => T): T {
    return this.#guard(() => this.#transaction.deferred(body) as T);
  }

  /** SQLite's failures (busy, full disk, damage) become errors the person can act on, naming the file. */
  #guard<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      if (error instanceof DroverError) throw error;
      throw sqliteProblem(error, this.#db.name) ?? error;
    }
  }
}

function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

function unique(ids: readonly WorkItemId[] | undefined): WorkItemId[] {
  return [...new Set(ids ?? [])];
}

function refuseOverlap(add: readonly WorkItemId[], remove: readonly WorkItemId[], addName: string, removeName: string) {
  const both = add.find((id) => remove.includes(id));
  if (both !== undefined) throw invalidField(removeName, `names item ${both}, which ${addName} adds in the same call`);
}
