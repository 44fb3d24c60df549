// @vitest-environment jsdom
// A big session opens in pages (issue 18): the state loads older messages and more finished rows
// on demand, keeps the counts right as tasks start and finish, and fetches by id a row no page holds.
import { describe, expect, it, vi } from 'vitest';
import type { Message, TaskRow } from '@shared/contract.js';
import type { DroverApi } from '../api.js';
import { FINISHED_PAGE_DEFAULT } from '@shared/schemas/task-page.js';
import { MESSAGE_FIRST_PAGE, MESSAGE_PAGE_DEFAULT } from '@shared/domain/page-sizes.js';
import { taskRow, taskPages } from '../test-tasks.js';
import { TasksState } from './tasks.svelte.js';
import { TranscriptState } from './transcript.svelte.js';
import { OpenPrefetch } from './open-prefetch.js';

function events() {
  const listeners = new Map<string, ((payload: unknown) => void)[]>();
  return {
    on: (name: string, listener: (payload: unknown) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
      return () =>
        listeners.set(
          name,
          (listeners.get(name) ?? []).filter((kept) => kept !== listener),
        );
    },
    emit: (name: string, payload: unknown) => {
      for (const listener of listeners.get(name) ?? []) listener(payload);
    },
  };
}

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

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the tasks of a big session', () => {
  function open(count: number) {
    let rows: TaskRow[] = Array.from({ length: count }, (_, i) => finished(i + 1));
    rows.push(taskRow(`bg_${count + 1}`, { queuedAt: new Date(Date.UTC(2025, 0, 1, 13)).toISOString() }));
    const bus = events();
    const pages = taskPages(() => rows);
    const api = {
      ...pages,
      pageFinishedTasks: vi.fn(pages.pageFinishedTasks),
      findTasks: vi.fn(pages.findTasks),
      on: bus.on,
    } as unknown as DroverApi;
    const tasks = new TasksState(api, 's1');
    const stop = tasks.start();
    const update = (row: TaskRow) => {
      rows = [...rows.filter((kept) => kept.id !== row.id), row];
      bus.emit('taskUpdated', { task: row });
    };
    return { tasks, stop, api, update };
  }

  it('opens with every count and one page, and loads the next pages as asked', async () => {
    const { tasks, stop, api } = open(250);
    await settle();
    expect(tasks.finishedCounts.all).toBe(250);
    expect(tasks.finished).toHaveLength(FINISHED_PAGE_DEFAULT);
    expect(tasks.finished[0]!.id).toBe('bg_250');
    expect(tasks.live.map((task) => task.id)).toEqual(['bg_251']);
    while (tasks.finishedHasMore) await tasks.loadMoreFinished();
    expect(tasks.finished.map((task) => task.id)).toEqual(Array.from({ length: 250 }, (_, i) => `bg_${250 - i}`));
    expect(tasks.finishedHasMore).toBe(false);
    await tasks.loadMoreFinished();
    expect(api.pageFinishedTasks).toHaveBeenCalledTimes(Math.ceil(250 / FINISHED_PAGE_DEFAULT) - 1);
    stop();
  });

  it('a task that finishes moves from the live tasks to the top of Finished, and the counts follow', async () => {
    const { tasks, stop, update } = open(250);
    await settle();
    update(taskRow('bg_252', { queuedAt: new Date(Date.UTC(2025, 0, 1, 14)).toISOString() }));
    expect(tasks.live.map((task) => task.id)).toEqual(['bg_251', 'bg_252']);
    expect(tasks.finishedCounts.all).toBe(250);
    update(
      finished(251, { status: 'failed', exitCode: 2, startedAt: new Date(Date.UTC(2025, 0, 1, 13)).toISOString() }),
    );
    expect(tasks.live.map((task) => task.id)).toEqual(['bg_252']);
    expect(tasks.finishedCounts).toMatchObject({ all: 251, succeeded: 250, failed: 1 });
    expect(tasks.finished[0]!.id).toBe('bg_251');
    // A finished row no page loaded is announced again: it was counted when the session opened.
    update(finished(3, { elapsedSeconds: 9 }));
    expect(tasks.finishedCounts).toMatchObject({ all: 251, succeeded: 250, failed: 1 });
    expect(tasks.finished.some((task) => task.id === 'bg_3')).toBe(false);
    stop();
  });

  it('fetches by id a task no page holds, once, and says when the service does not know it', async () => {
    const { tasks, stop, api } = open(250);
    await settle();
    expect(tasks.task('bg_5')).toBeUndefined();
    expect(tasks.task('bg_5')).toBeUndefined();
    expect(tasks.task('bg_999')).toBeUndefined();
    await settle();
    expect(api.findTasks).toHaveBeenCalledTimes(1);
    expect(tasks.task('bg_5')?.status).toBe('succeeded');
    expect(tasks.isGone('bg_999')).toBe(true);
    // Known by id, not listed: the Finished list still holds only its pages.
    expect(tasks.finished).toHaveLength(FINISHED_PAGE_DEFAULT);
    stop();
  });
});

describe('the transcript of a big session', () => {
  function message(id: number): Message {
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
    };
  }

  /** A transcript over `stored()`, whose listMessages answers as the store does (the newest `limit` before `beforeId`). */
  function storedTranscript(stored: () => Message[]) {
    const bus = events();
    const listMessages = vi.fn(async ({ beforeId, limit }: { beforeId?: number; limit?: number }) => {
      const older = stored().filter((m) => beforeId === undefined || m.id < beforeId);
      return limit === undefined ? older : older.slice(-limit);
    });
    const transcript = new TranscriptState({ listMessages, on: bus.on } as unknown as DroverApi, 's1');
    return { bus, listMessages, transcript };
  }

  it('opens on the newest page and puts older pages before it on demand; new messages still join at the end', async () => {
    const first = MESSAGE_FIRST_PAGE;
    const page = MESSAGE_PAGE_DEFAULT;
    const total = first + page + page / 2;
    let stored = Array.from({ length: total }, (_, i) => message(i + 1));
    const { bus, listMessages, transcript } = storedTranscript(() => stored);
    const stop = transcript.start();
    await settle();
    expect(transcript.messages.map((m) => m.id)).toEqual(
      Array.from({ length: first }, (_, i) => total - first + 1 + i),
    );
    expect(transcript.hasOlder).toBe(true);
    const added = message(total + 1);
    stored = [...stored, added];
    bus.emit('messageAdded', { message: added });
    // A change to a message before those held waits for its page.
    bus.emit('messageUpdated', { message: { ...message(3), text: 'changed' } });
    expect(transcript.messages).toHaveLength(first + 1);
    // Older pages are whole pages.
    expect(await transcript.loadOlder()).toBe(true);
    expect(transcript.messages[0]!.id).toBe(total - first - page + 1);
    expect(await transcript.loadOlder()).toBe(true);
    expect(transcript.messages.map((m) => m.id)).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
    expect(transcript.hasOlder).toBe(false);
    expect(await transcript.loadOlder()).toBe(false);
    expect(listMessages).toHaveBeenCalledTimes(3);
    stop();
  });

  it('does not claim older messages after a reload (a reconnect), nor ask for them', async () => {
    const stored = Array.from({ length: MESSAGE_FIRST_PAGE + 5 }, (_, i) => message(i + 1));
    const { listMessages, transcript } = storedTranscript(() => stored);
    const stop = transcript.start();
    await settle();
    expect(transcript.messages).toHaveLength(MESSAGE_FIRST_PAGE);
    expect(transcript.hasOlder).toBe(true);
    expect(await transcript.loadOlder()).toBe(true);
    expect(transcript.messages).toHaveLength(stored.length);
    expect(transcript.hasOlder).toBe(false);
    // The reload asks for what is held: all of it came, and nothing is older.
    await transcript.load();
    expect(transcript.messages.map((m) => m.id)).toEqual(stored.map((m) => m.id));
    expect(transcript.hasOlder).toBe(false);
    const calls = listMessages.mock.calls.length;
    expect(await transcript.loadOlder()).toBe(false);
    expect(listMessages.mock.calls.length).toBe(calls);
    stop();
  });
});

describe('the first requests, sent before the session list answers', () => {
  it('are taken once by the transcript and the tasks, with the events that came in between', async () => {
    const bus = events();
    let rows: TaskRow[] = [taskRow('bg_1'), finished(0)];
    const pages = taskPages(() => rows);
    const openTasks = vi.fn(pages.openTasks);
    const first = {
      id: 1,
      sessionId: 's1',
      role: 'user' as const,
      text: 'hello',
      taskId: null,
      toolName: null,
      toolCallId: null,
      toolArgs: null,
      toolResult: null,
      display: null,
      taskSnapshot: null,
      status: 'done' as const,
      automated: false,
      schedule: null,
      createdAt: new Date(1000).toISOString(),
    };
    const listMessages = vi.fn(async () => [first]);
    const api = { ...pages, openTasks, listMessages, on: bus.on } as unknown as DroverApi;
    const prefetch = new OpenPrefetch(api);
    prefetch.start('s1');
    await settle();
    // Before the views start: a message arrives and the running task finishes.
    bus.emit('messageAdded', { message: { ...first, id: 2, text: 'later' } });
    rows = [finished(1), finished(0)];
    bus.emit('taskUpdated', { task: rows[0] });
    const transcript = new TranscriptState(api, 's1', prefetch);
    const tasks = new TasksState(api, 's1', prefetch);
    const stops = [transcript.start(), tasks.start()];
    await settle();
    expect(listMessages).toHaveBeenCalledTimes(1);
    expect(openTasks).toHaveBeenCalledTimes(1);
    expect(transcript.messages.map((m) => m.text)).toEqual(['hello', 'later']);
    expect(tasks.live).toEqual([]);
    expect(tasks.finishedCounts.all).toBe(2);
    // A reload asks again: the prefetch is spent.
    await tasks.load();
    expect(openTasks).toHaveBeenCalledTimes(2);
    for (const stop of stops) stop();
  });

  it('are asked again when they failed (the connection dropped before the views took them)', async () => {
    const bus = events();
    const rows: TaskRow[] = [taskRow('bg_1'), finished(0)];
    const pages = taskPages(() => rows);
    const dropped = () => Promise.reject(new Error('disconnected'));
    const openTasks = vi.fn<typeof pages.openTasks>(dropped);
    const listMessages = vi.fn<() => Promise<Message[]>>(dropped);
    const api = { ...pages, openTasks, listMessages, on: bus.on } as unknown as DroverApi;
    const prefetch = new OpenPrefetch(api);
    prefetch.start('s1');
    await settle();
    // The connection is back by the time the views start.
    openTasks.mockImplementation(pages.openTasks);
    listMessages.mockImplementation(async () => []);
    const transcript = new TranscriptState(api, 's1', prefetch);
    const tasks = new TasksState(api, 's1', prefetch);
    const stops = [transcript.start(), tasks.start()];
    await settle();
    expect(listMessages).toHaveBeenCalledTimes(2);
    expect(openTasks).toHaveBeenCalledTimes(2);
    expect(transcript.loadError).toBeNull();
    expect(transcript.loaded).toBe(true);
    expect(tasks.live.map((task) => task.id)).toEqual(['bg_1']);
    expect(tasks.finishedCounts.all).toBe(1);
    for (const stop of stops) stop();
  });
});
