import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DroverError } from '../../shared/ipc/errors.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { TasksRepo } from '../store/tasks-repo.js';
import type { TaskRecord } from './task-record.js';
import { SettledOrder } from './settled-order.js';

/**
 * The records of the sessions seen so far, each session loaded once (the pool is their only
 * writer), the rows of settled records, which never change within a run, and each session's
 * settled rows in the Finished order (built when asked for, dropped when they change).
 */
export class TaskIndex {
  readonly #repo: TasksRepo;
  readonly #sessions = new Map<string, Map<string, TaskRecord>>();
  readonly #settledRows = new Map<string, TaskRow>();
  /** Records changed before their session was loaded (settled at open): they stand in for what the store holds. */
  readonly #primed = new Map<string, TaskRecord>();
  readonly #orders = new Map<string, SettledOrder>();

  constructor(repo: TasksRepo) {
    this.#repo = repo;
  }

  /** Every record of a session, oldest first; a damaged row is reported and left in place. */
  records(sessionId: string): Map<string, TaskRecord> {
    let records = this.#sessions.get(sessionId);
    if (!records) {
      records = new Map();
      for (const record of this.#repo.listBySession(sessionId, (message) => console.error(`[drover] ${message}`))) {
        records.set(record.id, this.#primed.get(record.id) ?? record);
      }
      this.#sessions.set(sessionId, records);
    }
    return records;
  }

  /** Records already changed in memory (their write may not have reached the store): loaded in place of their rows. */
  prime(records: readonly TaskRecord[]): void {
    for (const record of records) this.#primed.set(record.id, record);
  }

  find(id: string): TaskRecord | undefined {
    for (const records of this.#sessions.values()) {
      const record = records.get(id);
      if (record) return record;
    }
    return undefined;
  }

  require(sessionId: string, id: string): TaskRecord {
    const record = this.records(sessionId).get(id);
    if (!record) throw new DroverError('not_found', `No task with id "${id}" in this session`, { path: 'taskId' });
    return record;
  }

  settledRow(id: string): TaskRow | undefined {
    return this.#settledRows.get(id);
  }

  keepSettledRow(row: TaskRow): void {
    this.#settledRows.set(row.id, row);
    this.#orders.delete(row.sessionId);
  }

  /** The record changed: its row is computed afresh. */
  changed(id: string): void {
    const kept = this.#settledRows.get(id);
    if (!kept) return;
    this.#settledRows.delete(id);
    this.#orders.delete(kept.sessionId);
  }

  /**
   * The settled rows kept for a session, in the Finished order. Built, it first asks `makeRow`
   * for the row of each record that has none kept (the caller keeps those that are settled), so
   * the first open of a session sorts its rows once, here, instead of sorting them all in the open
   * and then again at the next one. Live rows, and any `makeRow` did not keep, are not in it: the
   * caller adds those (SettledOrder.open and .page).
   */
  settledOrder(sessionId: string, makeRow: (record: TaskRecord) => void): SettledOrder {
    let order = this.#orders.get(sessionId);
    if (!order) {
      const records = this.records(sessionId);
      for (const [id, record] of records) if (!this.#settledRows.has(id)) makeRow(record);
      const kept: TaskRow[] = [];
      for (const id of records.keys()) {
        const row = this.#settledRows.get(id);
        if (row) kept.push(row);
      }
      order = new SettledOrder(kept);
      // After makeRow: keeping a row drops the session's order, and this one holds it already.
      this.#orders.set(sessionId, order);
    }
    return order;
  }

  /** Deletes the records of a session that `removable` picks, from the store and with their logs; returns their ids. */
  async remove(sessionId: string, removable: (record: TaskRecord) => boolean): Promise<string[]> {
    const records = this.records(sessionId);
    const removed = [...records.values()].filter(removable);
    this.#repo.deleteMany(removed.map((record) => record.id));
    // Gone from memory at once, before the logs' folders: a read meanwhile sees none of them.
    for (const record of removed) {
      records.delete(record.id);
      this.#settledRows.delete(record.id);
    }
    this.#orders.delete(sessionId);
    for (const record of removed) await rm(join(record.logPath, '..'), { recursive: true, force: true });
    return removed.map((record) => record.id);
  }

  /** Forgets a deleted session. */
  forget(sessionId: string): void {
    for (const id of this.#sessions.get(sessionId)?.keys() ?? []) this.#settledRows.delete(id);
    this.#sessions.delete(sessionId);
    this.#orders.delete(sessionId);
  }
}
