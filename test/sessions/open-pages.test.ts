// Opening a big session in pages (issue 18): the transcript's pages by id and the Finished list's
// pages by keyset stay whole while rows are added, and the contract refuses limits naming the field.
import { describe, expect, it } from 'vitest';
import { contract } from '../../shared/contract.js';
import { EventBus } from '../../electron/core/event-bus.js';
import { openDatabase } from '../../electron/store/database.js';
import { SessionsService } from '../../electron/sessions/sessions-service.js';
import {
  FINISHED_PAGE_MAX,
  finishedBackground,
  finishedIds,
  finishedPage,
  openTasks,
  type FinishedCursor,
} from '../../shared/schemas/task-page.js';
import { openHandlers } from '../../electron/core/handlers-open.js';
import { MESSAGE_PAGE_MAX } from '../../shared/schemas/message.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { taskRow } from '../task-row.js';

function sessions() {
  const db = openDatabase(':memory:');
  return new SessionsService(db, new EventBus(contract));
}

/** A settled task that began `second` seconds into the day. */
function finished(n: number, second: number, patch: Partial<TaskRow> = {}): TaskRow {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
  return taskRow({ id: `bg_${n}`, status: 'succeeded', running: false, queuedAt: at, startedAt: at, ...patch });
}

describe('the transcript in pages', () => {
  it('answers the newest messages before an id, oldest first, and a page never shifts as messages arrive', () => {
    const service = sessions();
    const { id } = service.create('paged');
    for (let i = 0; i < 25; i++) service.append({ sessionId: id, role: 'user', text: `m${i}` });
    const newest = service.messages(id, { limit: 10 });
    expect(newest.map((m) => m.text)).toEqual(Array.from({ length: 10 }, (_, i) => `m${15 + i}`));
    // New messages come while the reader scrolls up: the older page is what it was.
    for (let i = 25; i < 30; i++) service.append({ sessionId: id, role: 'user', text: `m${i}` });
    const older = service.messages(id, { beforeId: newest[0]!.id, limit: 10 });
    expect(older.map((m) => m.text)).toEqual(Array.from({ length: 10 }, (_, i) => `m${5 + i}`));
    const oldest = service.messages(id, { beforeId: older[0]!.id, limit: 10 });
    expect(oldest.map((m) => m.text)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(service.messages(id)).toHaveLength(30);
  });

  it('refuses a page limit out of range, naming the field', () => {
    const input = contract.requests.listMessages.input;
    for (const limit of [0, MESSAGE_PAGE_MAX + 1, 1.5]) {
      const result = input.safeParse({ sessionId: 's1', limit });
      expect(result.success).toBe(false);
      expect(result.error!.issues[0]!.path).toEqual(['limit']);
    }
    expect(input.safeParse({ sessionId: 's1', beforeId: 0 }).error!.issues[0]!.path).toEqual(['beforeId']);
    expect(input.safeParse({ sessionId: 's1', limit: MESSAGE_PAGE_MAX }).success).toBe(true);
  });
});

describe('the Finished list in pages', () => {
  const rows = [
    taskRow({ id: 'bg_100', status: 'running' }),
    taskRow({ id: 'bg_101', status: 'queued', startedAt: null }),
    finished(102, 50, { status: 'orphaned', leftover: true }),
    ...Array.from({ length: 40 }, (_, i) =>
      finished(i + 1, i, i % 4 === 0 ? { status: 'failed', exitCode: 1, foreground: true } : {}),
    ),
  ];

  it('opens with the live tasks and leftovers whole, every count, and the first page newest first', () => {
    const open = openTasks(rows, 'all', 10);
    expect(open.live.map((task) => task.id)).toEqual(['bg_100', 'bg_101', 'bg_102']);
    expect(open.counts).toEqual({ all: 40, succeeded: 30, failed: 10, stopped: 0, timed_out: 0, background: 30 });
    expect(open.finished.tasks.map((task) => task.id)).toEqual(Array.from({ length: 10 }, (_, i) => `bg_${40 - i}`));
    expect(open.finished.next).toEqual({ at: Date.parse(open.finished.tasks[9]!.startedAt!), n: 31 });
    expect(open.newest).toBe(102);
  });

  it('pages by a keyset: tasks that start or settle meanwhile never skip or repeat a row', () => {
    const seen: string[] = [];
    let current = [...rows];
    let after: FinishedCursor | null = null;
    for (let round = 0; ; round++) {
      const page = finishedPage(current, 'all', after, 7);
      seen.push(...page.tasks.map((task) => task.id));
      if (page.next === null) break;
      after = page.next;
      // A newer task settles, and an old one that was running settles in the middle of the order.
      current = [...current, finished(200 + round, 1_000 + round)];
      if (round === 1) current = current.map((task) => (task.id === 'bg_100' ? finished(100, 20) : task));
    }
    const expected = finishedIds(current, 'all').filter((id) => Number(id.slice(3)) < 200);
    // Every row older than the cursor when it settled comes once, in order; newer ones wait for the top.
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id !== 'bg_100')).toEqual(expected.filter((id) => id !== 'bg_100'));
  });

  it('pages one outcome at a time', () => {
    const page = finishedPage(rows, 'failed', null, 100);
    expect(page.tasks.map((task) => task.id)).toEqual([
      'bg_37',
      'bg_33',
      'bg_29',
      'bg_25',
      'bg_21',
      'bg_17',
      'bg_13',
      'bg_9',
      'bg_5',
      'bg_1',
    ]);
    expect(page.next).toBeNull();
  });

  it('refuses limits and cursors that do not fit, naming the field', () => {
    const paged = contract.requests.pageFinishedTasks.input;
    expect(paged.safeParse({ sessionId: 's1', limit: FINISHED_PAGE_MAX + 1 }).error!.issues[0]!.path).toEqual([
      'limit',
    ]);
    expect(paged.safeParse({ sessionId: 's1', filter: 'lost' }).error!.issues[0]!.path).toEqual(['filter']);
    expect(paged.safeParse({ sessionId: 's1', after: { at: 1, n: -1 } }).error!.issues[0]!.path).toEqual([
      'after',
      'n',
    ]);
    const find = contract.requests.findTasks.input;
    expect(find.safeParse({ sessionId: 's1', taskIds: [] }).error!.issues[0]!.path).toEqual(['taskIds']);
    expect(find.safeParse({ sessionId: 's1', taskIds: ['nope'] }).error!.issues[0]!.path).toEqual(['taskIds', 0]);
    expect(contract.requests.openTasks.input.safeParse({ sessionId: 's1', limit: 0 }).error!.issues[0]!.path).toEqual([
      'limit',
    ]);
  });
});

describe('the rows a Work tab and a Clear need beyond the pages', () => {
  const rows = [
    taskRow({ id: 'bg_1', status: 'running', workItem: { listId: 's1', itemId: 1 } }),
    finished(2, 2, { workItem: { listId: 's1', itemId: 1 } }),
    finished(3, 3, { workItem: { listId: 'shared', itemId: 1 } }),
    finished(4, 4, { status: 'failed', exitCode: 1, foreground: true }),
    finished(5, 5, { status: 'failed', exitCode: 1 }),
    finished(6, 6, { status: 'failed', exitCode: 1, foreground: true, adopted: true }),
  ];
  const handlers = openHandlers({
    pool: {
      list: () => rows,
      has: (_session: string, id: string) => rows.some((row) => row.id === id),
      row: (_session: string, id: string) => rows.find((row) => row.id === id)!,
    } as never,
    requireSession: () => undefined,
  });

  it('answers every task of the session linked to a work list, finished or not, and no other list’s', async () => {
    const { tasks } = await handlers.workListTasks({ sessionId: 's1', listId: 's1' });
    expect(tasks.map((task) => task.id)).toEqual(['bg_1', 'bg_2']);
    expect(
      contract.requests.workListTasks.input.safeParse({ sessionId: 's1', listId: '' }).error!.issues[0]!.path,
    ).toEqual(['listId']);
  });

  it('says how many of the tasks a Clear takes ran in the background', async () => {
    expect(finishedBackground(rows, 'failed')).toBe(2);
    expect(finishedBackground(rows, 'all')).toBe(4);
    const answer = await handlers.finishedTaskIds({ sessionId: 's1', filter: 'failed' });
    expect(answer).toEqual({ ids: ['bg_6', 'bg_5', 'bg_4'], background: 2 });
  });
});
