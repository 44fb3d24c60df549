// The Finished list's settled rows kept sorted (issue 18: opening a big session). SettledOrder must
// answer exactly what openTasks and finishedPage answer over all of a session's rows, whichever
// rows it holds; the index must drop it whenever the rows it holds change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SettledOrder } from '../../electron/pool/settled-order.js';
import { TaskIndex } from '../../electron/pool/task-index.js';
import { newTaskRecord, type TaskRecord } from '../../electron/pool/task-record.js';
import { openDatabase } from '../../electron/store/database.js';
import { TasksRepo } from '../../electron/store/tasks-repo.js';
import {
  FINISHED_FILTERS,
  finishedPage,
  isFinishedTask,
  openTasks,
  type FinishedCursor,
} from '../../shared/schemas/task-page.js';
import type { TaskRow, TaskStatus } from '../../shared/schemas/task.js';
import { taskRow } from '../task-row.js';

const STATUSES: TaskStatus[] = ['running', 'queued', 'succeeded', 'failed', 'stopped', 'timed_out', 'lost', 'orphaned'];

/** A row of a session: any status, a leftover now and then, begun at one of few seconds (so ties on time are common). */
const rowArbitrary = fc.record({
  status: fc.constantFrom(...STATUSES),
  leftover: fc.boolean(),
  second: fc.integer({ min: 0, max: 30 }),
  queuedOnly: fc.boolean(),
  foreground: fc.boolean(),
  adopted: fc.boolean(),
});

type RowSpec = typeof rowArbitrary extends fc.Arbitrary<infer T> ? T : never;

function rowsFrom(specs: RowSpec[]): TaskRow[] {
  return specs.map((spec, i) => {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, spec.second)).toISOString();
    return taskRow({
      id: `bg_${i + 1}`,
      status: spec.status,
      running: spec.status === 'running',
      leftover: spec.status === 'orphaned' && spec.leftover,
      queuedAt: at,
      startedAt: spec.queuedOnly ? null : at,
      foreground: spec.foreground,
      adopted: spec.adopted,
    });
  });
}

describe('SettledOrder', () => {
  it('opens and pages exactly as openTasks and finishedPage do over all the rows, whichever finished rows it holds', () => {
    fc.assert(
      fc.property(
        fc.array(rowArbitrary, { maxLength: 60 }),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        fc.constantFrom(...FINISHED_FILTERS),
        fc.integer({ min: 1, max: 12 }),
        (specs, heldMask, filter, limit) => {
          const rows = rowsFrom(specs);
          // The order holds some finished rows (those the index kept settled); the rest come as `others`, in order.
          const held = rows.filter((row, i) => isFinishedTask(row) && heldMask[i]);
          const order = new SettledOrder(held);
          const others = rows.filter((row) => !order.has(row.id));
          expect(order.open(others, filter, limit)).toEqual(openTasks(rows, filter, limit));
          // Every page after the first, following the cursors to the end.
          let after: FinishedCursor | null = null;
          for (let pages = 0; pages < 80; pages++) {
            const page = order.page(others, filter, after, limit);
            expect(page).toEqual(finishedPage(rows, filter, after, limit));
            if (page.next === null) break;
            after = page.next;
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts a page after any cursor, one that no row has included', () => {
    fc.assert(
      fc.property(
        fc.array(rowArbitrary, { maxLength: 40 }),
        fc.integer({ min: 0, max: 31 }),
        fc.integer({ min: 0, max: 45 }),
        (specs, second, n) => {
          const rows = rowsFrom(specs);
          const order = new SettledOrder(rows.filter((row, i) => i % 2 === 0 && isFinishedTask(row)));
          const others = rows.filter((row) => !order.has(row.id));
          const after = { at: Date.UTC(2026, 0, 1, 0, 0, second), n };
          expect(order.page(others, 'all', after, 5)).toEqual(finishedPage(rows, 'all', after, 5));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds only rows of the Finished list: a live one or a leftover given to it stays with the caller', () => {
    const rows = rowsFrom([
      { status: 'running', leftover: false, second: 1, queuedOnly: false, foreground: false, adopted: false },
      { status: 'orphaned', leftover: true, second: 2, queuedOnly: false, foreground: false, adopted: false },
      { status: 'succeeded', leftover: false, second: 3, queuedOnly: false, foreground: false, adopted: false },
    ]);
    const order = new SettledOrder(rows);
    expect([order.has('bg_1'), order.has('bg_2'), order.has('bg_3')]).toEqual([false, false, true]);
    expect(order.size).toBe(1);
  });
});

describe("the index's settled order", () => {
  function indexWith(count: number) {
    const db = openDatabase(':memory:');
    db.prepare('INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run(
      's1',
      'orders',
      0,
      0,
    );
    const repo = new TasksRepo(db);
    const records: TaskRecord[] = [];
    for (let i = 0; i < count; i++) {
      records.push(
        repo.create((seq) => ({
          ...newTaskRecord({
            seq,
            sessionId: 's1',
            kind: 'command',
            command: `step ${seq}`,
            cwd: '/',
            runId: 'run',
            queuedAt: seq * 1000,
            expectedSeconds: null,
            timeoutSeconds: 60,
            notify: false,
            foreground: false,
            tty: false,
            sandboxed: false,
            logPath: `/nonexistent/drover-test/${seq}/output.log`,
            notifyMode: null,
            checkAfterSeconds: null,
            readyCheck: null,
            notifyReady: false,
            workItem: null,
            ownerTaskId: null,
            agentInfo: null,
          }),
          status: 'succeeded',
          startedAt: seq * 1000,
          endedAt: seq * 1000 + 500,
        })),
      );
    }
    return { index: new TaskIndex(repo), records };
  }

  const settledRow = (record: TaskRecord) =>
    taskRow({
      id: record.id,
      sessionId: record.sessionId,
      status: 'succeeded',
      running: false,
      queuedAt: new Date(record.queuedAt).toISOString(),
      startedAt: new Date(record.startedAt!).toISOString(),
    });

  /** A caller that makes no row (keeps none): the order holds only what was kept before. */
  const noRow = () => {};

  it('asks for the rows not kept yet when it is made, keeps the order they join, and does not ask again', () => {
    const { index, records } = indexWith(5);
    index.keepSettledRow(settledRow(records[1]!));
    const asked: string[] = [];
    const keep = (record: TaskRecord) => {
      asked.push(record.id);
      // The fourth one is still live: the caller keeps no row for it.
      if (record.id !== records[3]!.id) index.keepSettledRow(settledRow(record));
    };
    const order = index.settledOrder('s1', keep);
    expect(asked).toEqual([records[0], records[2], records[3], records[4]].map((record) => record!.id));
    expect(order.size).toBe(4);
    expect(order.has(records[3]!.id)).toBe(false);
    // Keeping rows while it was made did not drop it: asked again, the same order, and no row made again.
    expect(index.settledOrder('s1', keep)).toBe(order);
    expect(asked).toHaveLength(4);
  });

  it('holds the rows kept settled, and is made again when a row is kept, changed or removed, or the session forgotten', async () => {
    const { index, records } = indexWith(4);
    index.records('s1');
    expect(index.settledOrder('s1', noRow).size).toBe(0);
    for (const record of records.slice(0, 3)) index.keepSettledRow(settledRow(record));
    const first = index.settledOrder('s1', noRow);
    expect(first.size).toBe(3);
    // Asked again with nothing changed: the same order, not sorted again.
    expect(index.settledOrder('s1', noRow)).toBe(first);

    index.keepSettledRow(settledRow(records[3]!));
    expect(index.settledOrder('s1', noRow).size).toBe(4);

    // A record that changed is computed afresh: the order no longer holds its old row.
    index.changed(records[0]!.id);
    const afterChange = index.settledOrder('s1', noRow);
    expect(afterChange.has(records[0]!.id)).toBe(false);
    expect(afterChange.size).toBe(3);
    // A change to a record whose row was not kept leaves the order alone.
    index.changed(records[0]!.id);
    expect(index.settledOrder('s1', noRow)).toBe(afterChange);

    await index.remove('s1', (record) => record.id === records[1]!.id);
    expect(index.settledOrder('s1', noRow).has(records[1]!.id)).toBe(false);
    expect(index.settledOrder('s1', noRow).size).toBe(2);
    expect([...index.records('s1').keys()]).not.toContain(records[1]!.id);

    index.forget('s1');
    // Loaded again from the store: nothing is kept settled for it any more.
    expect(index.settledOrder('s1', noRow).size).toBe(0);
  });

  it('never shows a removed row while the logs of the others are still being deleted', async () => {
    const { index, records } = indexWith(3);
    index.records('s1');
    for (const record of records) index.keepSettledRow(settledRow(record));
    const removing = index.remove('s1', () => true);
    // The removal awaits each log folder's deletion; a read in between sees none of the removed rows.
    expect(index.settledOrder('s1', noRow).size).toBe(0);
    expect(index.records('s1').size).toBe(0);
    await removing;
  });
});
