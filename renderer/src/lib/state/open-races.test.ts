// @vitest-environment jsdom
// A big session opens in pages (issue 18), and answers race the events and the person's choices:
// an update to an old message, a filter picked while a reload is on its way, a task settling
// during a Clear's undo window or a filter switch. Each keeps the list whole, ordered and counted.
import { describe, expect, it, vi } from 'vitest';
import type { Message, TaskRow } from '@shared/contract.js';
import { FINISHED_PAGE_DEFAULT } from '@shared/schemas/task-page.js';
import { MESSAGE_FIRST_PAGE } from '@shared/domain/page-sizes.js';
import type { DroverApi } from '../api.js';
import { taskPages, taskRow, testEvents } from '../test-tasks.js';
import { TasksState } from './tasks.svelte.js';
import { TranscriptState } from './transcript.svelte.js';

/** Finished task n began n seconds into the hour: a higher number is newer. */
function finished(n: number, patch: Partial<TaskRow> = {}): TaskRow {
  const at = new Date(Date.UTC(2025, 0, 1, 12, 0, n)).toISOString();
  return taskRow(`bg_${n}`, {
    status: 'succeeded',
    running: false,
    exitCode: 0,
    queuedAt: at,
    startedAt: at,
    ...patch,
  });
}

function message(id: number, patch: Partial<Message> = {}): Message {
  return {
    id,
    sessionId: 's1',
    role: 'user',
    text: `m${id}`,
    taskId: null,
    toolName: null,
    toolCallId: null,
    toolArgs: null,
    toolResult: null,
    display: null,
    taskSnapshot: null,
    status: 'done',
    automated: false,
    schedule: null,
    createdAt: new Date(id * 1000).toISOString(),
    ...patch,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A gate an answer waits on until `open` is called. */
function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

describe('the transcript while its pages load', () => {
  function transcriptOf(count: number) {
    const stored = Array.from({ length: count }, (_, i) => message(i + 1));
    const bus = testEvents();
    let hold: Promise<void> | null = null;
    let fail = false;
    const listMessages = vi.fn(async ({ beforeId, limit }: { beforeId?: number; limit?: number }) => {
      if (hold) await hold;
      if (fail) throw new Error('offline');
      const older = stored.filter((m) => beforeId === undefined || m.id < beforeId);
      return limit === undefined ? older : older.slice(-limit);
    });
    const transcript = new TranscriptState({ listMessages, on: bus.on } as unknown as DroverApi, 's1');
    return {
      transcript,
      bus,
      stored,
      setHold: (next: Promise<void> | null) => (hold = next),
      setFail: (next: boolean) => (fail = next),
    };
  }

  it('an old message that changes while the first page loads leaves no hole for the older pages', async () => {
    const { transcript, bus, stored, setHold } = transcriptOf(200);
    const first = gate();
    setHold(first.closed);
    const stop = transcript.start();
    // A tool row from early on settles (its task finished) while the first page is on its way.
    bus.emit('messageUpdated', { message: message(3, { text: 'settled' }) });
    setHold(null);
    first.open();
    await settle();
    expect(transcript.messages[0]!.id).toBe(200 - MESSAGE_FIRST_PAGE + 1);
    while (transcript.hasOlder) await transcript.loadOlder();
    expect(transcript.messages.map((m) => m.id)).toEqual(stored.map((m) => m.id));
    stop();
  });

  it('is not left loading older messages when a reload fails while an older page was on its way', async () => {
    const { transcript, setHold, setFail } = transcriptOf(200);
    const stop = transcript.start();
    await settle();
    const older = gate();
    setHold(older.closed);
    const asked = transcript.loadOlder();
    expect(transcript.loadingOlder).toBe(true);
    setFail(true);
    const reload = transcript.load();
    older.open();
    await Promise.all([asked, reload]);
    expect(transcript.loadError).not.toBeNull();
    expect(transcript.loadingOlder).toBe(false);
    setHold(null);
    setFail(false);
    expect(await transcript.loadOlder()).toBe(true);
    stop();
  });
});

describe('the Finished list while answers race', () => {
  function open(count: number, extra: TaskRow[] = []) {
    let rows: TaskRow[] = Array.from({ length: count }, (_, i) => finished(i + 1));
    rows.push(taskRow(`bg_${count + 1}`, { queuedAt: new Date(Date.UTC(2025, 0, 1, 13)).toISOString() }), ...extra);
    const bus = testEvents();
    const pages = taskPages(() => rows);
    let hold: Promise<void> | null = null;
    let failPages = false;
    const api = {
      ...pages,
      openTasks: vi.fn(async (input: never) => {
        if (hold) await hold;
        return pages.openTasks(input);
      }),
      pageFinishedTasks: vi.fn(async (input: never) => {
        if (hold) await hold;
        if (failPages) throw new Error('offline');
        return pages.pageFinishedTasks(input);
      }),
      findTasks: vi.fn(pages.findTasks),
      clearFinishedTasks: async ({ taskIds }: { taskIds: string[] }) => {
        rows = rows.filter((row) => !taskIds.includes(row.id));
        bus.emit('tasksCleared', { sessionId: 's1', removed: taskIds });
        return { removed: taskIds, kept: [] };
      },
      on: bus.on,
    };
    const tasks = new TasksState(api as unknown as DroverApi, 's1');
    const stop = tasks.start();
    const update = (row: TaskRow) => {
      rows = [...rows.filter((kept) => kept.id !== row.id), row];
      bus.emit('taskUpdated', { task: row });
    };
    const forget = (id: string) => (rows = rows.filter((row) => row.id !== id));
    const setHold = (next: Promise<void> | null) => (hold = next);
    const setFailPages = (next: boolean) => (failPages = next);
    return { tasks, stop, api, update, forget, setHold, setFailPages };
  }
  const laterStart = (second: number) => new Date(Date.UTC(2025, 0, 1, 13, 0, second)).toISOString();

  it('keeps a filter picked while a reload is on its way, with the reload’s counts', async () => {
    const { tasks, stop, update, setHold } = open(100);
    await settle();
    update(finished(7, { status: 'failed', exitCode: 1 }));
    const answer = gate();
    setHold(answer.closed);
    const reload = tasks.load();
    tasks.finishedFilter = 'failed';
    setHold(null);
    answer.open();
    await reload;
    await settle();
    expect(tasks.finishedFilter).toBe('failed');
    expect(tasks.finished.map((task) => task.id)).toEqual(['bg_7']);
    expect(tasks.finishedCounts).toMatchObject({ all: 100, failed: 1, succeeded: 99 });
    expect(tasks.live.map((task) => task.id)).toEqual(['bg_101']);
    stop();
  });

  it('counts a task that finishes in the undo window of a Clear of everything, as it lists it', async () => {
    const { tasks, stop, update } = open(100);
    await settle();
    tasks.clearFinished();
    await settle();
    expect(tasks.finishedCounts.all).toBe(0);
    update(finished(101, { startedAt: laterStart(0) }));
    expect(tasks.finished.map((task) => task.id)).toEqual(['bg_101']);
    expect(tasks.finishedCounts).toMatchObject({ all: 1, succeeded: 1, background: 1 });
    tasks.undoClear();
    expect(tasks.finishedCounts.all).toBe(101);
    stop();
  });

  it('a Clear under a filter takes that outcome and its background share from the counts', async () => {
    const failed = (n: number, foreground: boolean) =>
      finished(n, { status: 'failed', exitCode: 1, foreground, startedAt: laterStart(n) });
    const { tasks, stop } = open(10, [failed(20, true), failed(21, false), failed(22, false)]);
    await settle();
    expect(tasks.finishedCounts).toMatchObject({ all: 13, failed: 3, succeeded: 10, background: 12 });
    tasks.finishedFilter = 'failed';
    await settle();
    tasks.clearFinished();
    await settle();
    expect(tasks.undoableClear).toBe(3);
    expect(tasks.finishedCounts).toMatchObject({ all: 10, failed: 0, succeeded: 10, background: 10 });
    tasks.undoClear();
    stop();
  });

  it('does not bring the old totals back between a committed Clear and the reload that follows', async () => {
    const { tasks, stop, setHold } = open(100);
    await settle();
    tasks.clearFinished();
    await settle();
    const answer = gate();
    setHold(answer.closed);
    await tasks.commitClear();
    expect(tasks.finishedCounts.all).toBe(0);
    expect(tasks.undoableClear).toBeNull();
    setHold(null);
    answer.open();
    await settle();
    expect(tasks.finishedCounts.all).toBe(0);
    expect(tasks.finished).toEqual([]);
    expect(tasks.live.map((task) => task.id)).toEqual(['bg_101']);
    stop();
  });

  it('places a task that settles while another filter’s first page loads in order, not on top', async () => {
    const { tasks, stop, update, setHold } = open(100);
    await settle();
    const answer = gate();
    setHold(answer.closed);
    tasks.finishedFilter = 'succeeded';
    // bg_102 began long ago (between bg_30 and bg_31) and settles now.
    update(finished(102, { startedAt: new Date(Date.UTC(2025, 0, 1, 12, 0, 30, 500)).toISOString() }));
    setHold(null);
    answer.open();
    await settle();
    const ids = tasks.finished.map((task) => task.id);
    expect(ids[0]).toBe('bg_100');
    expect(ids).not.toContain('bg_102');
    while (tasks.finishedHasMore) await tasks.loadMoreFinished();
    const all = tasks.finished.map((task) => task.id);
    expect(all.indexOf('bg_102')).toBe(all.indexOf('bg_31') + 1);
    stop();
  });

  it('loads a filter’s first page again when it failed', async () => {
    const { tasks, stop, setFailPages } = open(100);
    await settle();
    setFailPages(true);
    tasks.finishedFilter = 'succeeded';
    await settle();
    expect(tasks.finishedError).not.toBeNull();
    expect(tasks.finishedHasMore).toBe(true);
    setFailPages(false);
    await tasks.loadMoreFinished();
    expect(tasks.finished).toHaveLength(FINISHED_PAGE_DEFAULT);
    stop();
  });

  it('a reload keeps as many finished rows as were loaded, and the rows fetched by id', async () => {
    const { tasks, stop, api, forget } = open(250);
    await settle();
    await tasks.loadMoreFinished();
    await tasks.loadMoreFinished();
    expect(tasks.finished).toHaveLength(150);
    tasks.task('bg_3');
    tasks.task('bg_4');
    await settle();
    expect(tasks.task('bg_3')).toBeDefined();
    // bg_4 was cleared while the connection was away.
    forget('bg_4');
    await tasks.load();
    expect(api.openTasks).toHaveBeenLastCalledWith(expect.objectContaining({ limit: 150 }));
    expect(tasks.finished).toHaveLength(150);
    expect(tasks.task('bg_3')?.status).toBe('succeeded');
    await settle();
    expect(tasks.task('bg_4')).toBeUndefined();
    expect(tasks.isGone('bg_4')).toBe(true);
    stop();
  });

  it('says why a row asked for by id could not load, and asks again on Try again or a reload', async () => {
    const { tasks, stop, api } = open(100);
    await settle();
    api.findTasks.mockRejectedValueOnce(new Error('offline'));
    expect(tasks.task('bg_5')).toBeUndefined();
    await settle();
    expect(tasks.taskError('bg_5')).toBe('Could not load bg_5: offline');
    // Not asked again by itself while the view shows why.
    expect(tasks.task('bg_5')).toBeUndefined();
    await settle();
    expect(api.findTasks).toHaveBeenCalledTimes(1);
    tasks.retryTask('bg_5');
    await settle();
    expect(tasks.taskError('bg_5')).toBeNull();
    expect(tasks.task('bg_5')?.status).toBe('succeeded');
    api.findTasks.mockRejectedValueOnce(new Error('offline'));
    tasks.task('bg_6');
    await settle();
    expect(tasks.taskError('bg_6')).not.toBeNull();
    await tasks.load();
    expect(tasks.taskError('bg_6')).toBeNull();
    tasks.task('bg_6');
    await settle();
    expect(tasks.task('bg_6')?.status).toBe('succeeded');
    stop();
  });

  it('loads the finished tasks of a work list that no page holds, and keeps them current', async () => {
    const linked = (n: number, itemId: number, patch: Partial<TaskRow> = {}) =>
      finished(n, { workItem: { listId: 's1', itemId }, ...patch });
    const { tasks, stop, update } = open(100, [
      linked(201, 1, { startedAt: new Date(Date.UTC(2025, 0, 1, 11)).toISOString() }),
      linked(202, 2, { startedAt: new Date(Date.UTC(2025, 0, 1, 11)).toISOString(), status: 'failed' }),
      finished(203, { workItem: { listId: 'other', itemId: 1 }, startedAt: laterStart(-3600) }),
    ]);
    await settle();
    expect(tasks.list.some((task) => task.id === 'bg_201')).toBe(false);
    expect(await tasks.loadWorkListTasks('s1')).toBeNull();
    const forList = tasks.list.filter((task) => task.workItem?.listId === 's1').map((task) => task.id);
    expect(forList).toEqual(['bg_201', 'bg_202']);
    expect(tasks.list.some((task) => task.id === 'bg_203')).toBe(false);
    // Known for the Work tab, not listed: the Finished list still holds only its pages.
    expect(tasks.finished).toHaveLength(FINISHED_PAGE_DEFAULT);
    expect(tasks.finishedCounts.all).toBe(103);
    update(linked(204, 1, { status: 'running', running: true, startedAt: laterStart(5), queuedAt: laterStart(5) }));
    expect(tasks.list.filter((task) => task.workItem?.itemId === 1).map((task) => task.id)).toEqual([
      'bg_201',
      'bg_204',
    ]);
    stop();
  });
});
