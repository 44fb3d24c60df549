// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { Checklist } from '@shared/schemas/todos.js';
import type { WorkList } from '@shared/schemas/work.js';
import type { DroverApi } from '../api.js';
import { TodosState } from './todos.svelte.js';
import { WorkListState } from './work.svelte.js';

/** Answers the caller settles by hand, so a test decides which one lands first. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

function fakeApi(requests: Record<string, (input: unknown) => Promise<unknown>>) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const api = {
    ...requests,
    on: (name: string, listener: (payload: unknown) => void) => {
      listeners.set(name, listener);
      return () => listeners.delete(name);
    },
  } as unknown as DroverApi;
  return { api, emit: (name: string, payload: unknown) => listeners.get(name)?.(payload) };
}

const checklist = (content: string): Checklist => ({
  items: [{ content, status: 'in_progress', activeForm: `${content}…` }],
  removedByPerson: [],
  completedByPerson: [],
  updatedAt: '2025-01-01T12:00:00.000Z',
});

const board = (revision: number, subjects: string[]): WorkList => ({
  listId: 's1',
  items: subjects.map((subject, index) => ({
    id: index + 1,
    status: 'pending',
    subject,
    owner: null,
    blockedBy: [],
    blockedReason: null,
  })),
  tally: { pending: subjects.length, inProgress: 0, completed: 0, total: subjects.length },
  unreadable: [],
  revision,
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the checklist’s state', () => {
  it('keeps an event that arrived while the first read was on its way over that older answer', async () => {
    const read = deferred<Checklist>();
    const { api, emit } = fakeApi({ getTodos: () => read.promise });
    const todos = new TodosState(api, 's1');
    const stop = todos.start();
    emit('todosChanged', { sessionId: 's1', checklist: checklist('Newer'), by: 'model' });
    emit('todosChanged', { sessionId: 'other', checklist: checklist('Not ours'), by: 'model' });
    read.resolve(checklist('Older'));
    await settle();
    expect(todos.items.map((item) => item.content)).toEqual(['Newer']);
    stop();
  });

  it('takes one edit at a time and says why one failed', async () => {
    const answer = deferred<{ checklist: Checklist; notes: string[] }>();
    let calls = 0;
    const { api } = fakeApi({
      getTodos: async () => checklist('A'),
      editTodo: () => {
        calls++;
        return calls === 1 ? answer.promise : Promise.reject(new Error('no such item'));
      },
    });
    const todos = new TodosState(api, 's1');
    const stop = todos.start();
    await settle();
    const first = todos.edit('complete', 'A');
    expect(await todos.edit('remove', 'A')).toBe(false);
    answer.resolve({ checklist: { ...checklist('A'), items: [] }, notes: [] });
    expect(await first).toBe(true);
    expect(todos.items).toEqual([]);
    expect(await todos.edit('remove', 'A')).toBe(false);
    expect(todos.error).toBe('Could not change the checklist: no such item');
    stop();
  });
});

describe('the work list’s state', () => {
  it('reads the list again on its change event, the newest read winning over a slower older one', async () => {
    const reads = [deferred<WorkList>(), deferred<WorkList>()];
    let call = 0;
    const { api, emit } = fakeApi({ listWorkItems: () => reads[call++]!.promise });
    const work = new WorkListState(api, 's1');
    const stop = work.start();
    emit('workItemsChanged', { listId: 'other', revision: 9 });
    expect(call).toBe(1);
    emit('workItemsChanged', { listId: 's1', revision: 2 });
    expect(call).toBe(2);
    reads[1]!.resolve(board(2, ['a', 'b']));
    await settle();
    reads[0]!.resolve(board(1, ['a']));
    await settle();
    expect(work.list?.revision).toBe(2);
    expect(work.list?.items).toHaveLength(2);
    stop();
  });

  it('asks for the session’s list and follows the list the answer names (a shared one)', async () => {
    const asked: unknown[] = [];
    const { api, emit } = fakeApi({
      listWorkItems: (input: unknown) => {
        asked.push(input);
        return Promise.resolve({ ...board(1, ['a']), listId: 'team.board' });
      },
    });
    const work = new WorkListState(api, 's1');
    const stop = work.start();
    await settle();
    expect(asked).toEqual([{ sessionId: 's1', includeCompleted: true }]);
    expect(work.listId).toBe('team.board');
    emit('workItemsChanged', { listId: 's1', revision: 5 });
    expect(asked).toHaveLength(1);
    emit('workItemsChanged', { listId: 'team.board', revision: 5 });
    expect(asked).toHaveLength(2);
    stop();
  });
});
