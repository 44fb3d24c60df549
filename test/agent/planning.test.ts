import { describe, expect, it } from 'vitest';
import { until } from '../helpers.js';
import { setupAgent } from './agent-harness.js';

describe('planning through the fake model: todo_write and the work ledger', () => {
  it('the person removes and completes items mid-plan; a stale resend cannot undo it, and the model is told', async () => {
    const { model, say, call, session, turnsEnded } = await setupAgent();
    const plan = [
      { content: 'Read the code', status: 'in_progress', activeForm: 'Reading the code' },
      { content: 'Fix the bug', status: 'pending', activeForm: 'Fixing the bug' },
      { content: 'Update the docs', status: 'pending', activeForm: 'Updating the docs' },
    ];
    model.enqueue({ toolCalls: [{ name: 'todo_write', args: { todos: plan } }] }, { text: 'Planned.' });
    await say('Fix the bug');
    expect(model.requests[1]!.transcript).toContain('Checklist: 0 of 3 completed; in progress: Reading the code.');
    expect(await call('getTodos', { sessionId: session.id })).toMatchObject({ items: plan });

    // The person drops the docs item and completes the reading in the manager.
    await call('editTodo', { sessionId: session.id, action: 'remove', content: 'Update the docs' });
    await call('editTodo', { sessionId: session.id, action: 'complete', content: 'Read the code' });

    // The model resends its stale list: the docs item back, the reading still in progress.
    model.enqueue({ toolCalls: [{ name: 'todo_write', args: { todos: plan } }] }, { text: 'Carrying on.' });
    await say('go on');
    const answer = model.requests[3]!.transcript;
    expect(answer).toMatch(/Note: .*Update the docs/);
    expect(answer).toMatch(/Note: .*Read the code/);
    const now = (await call('getTodos', { sessionId: session.id })) as { items: { content: string; status: string }[] };
    expect(now.items.map((item) => [item.content, item.status])).toEqual([
      ['Read the code', 'completed'],
      ['Fix the bug', 'pending'],
    ]);
    expect(turnsEnded()).toBe(2);
  });

  it('the ledger: items with an edge, completing one names what it unblocked, list and get', async () => {
    const { model, say } = await setupAgent();
    model.enqueue(
      { toolCalls: [{ name: 'task_create', args: { subject: 'Write the schema' } }] },
      { toolCalls: [{ name: 'task_create', args: { subject: 'Build the API', blocked_by: [1] } }] },
      { toolCalls: [{ name: 'task_update', args: { task_id: 1, status: 'in_progress', owner: 'me' } }] },
      { toolCalls: [{ name: 'task_update', args: { taskId: 1, status: 'completed' } }] },
      { toolCalls: [{ name: 'task_list', args: {} }] },
      { toolCalls: [{ name: 'task_get', args: { task_id: 2 } }] },
      { text: 'Done.' },
    );
    await say('Plan the API');
    await until(() => model.requests.length >= 7, 'the turn');
    const text = (i: number) => model.requests[i]!.transcript;
    expect(text(2)).toContain('Created work item 2: Build the API (pending).\nBlocked by: 1.');
    expect(text(4)).toContain('This unblocked: 2 (Build the API). Pick the next one up now.');
    expect(text(5)).toMatch(
      /1 \[completed\] Write the schema \| owner me\n2 \[pending\] Build the API\n1 of 2 completed/,
    );
    expect(text(6)).toMatch(/Work item 2 in list .*: Build the API\nstatus: pending[\s\S]*blocked_by: 1/);
  });
});

describe('a plan the person closes', () => {
  it('is told to the model at its next turn, once, naming what the person did', async () => {
    const { model, say, call, session } = await setupAgent();
    const plan = [
      { content: 'Read the code', status: 'completed', activeForm: 'Reading the code' },
      { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug' },
    ];
    model.enqueue({ toolCalls: [{ name: 'todo_write', args: { todos: plan } }] }, { text: 'Planned.' });
    await say('Fix the bug');
    // The person marks the whole plan done (the manager's "a").
    await call('editTodo', { sessionId: session.id, action: 'completeAll' });
    model.enqueue({ text: 'Noted.' }, { text: 'Again.' });
    await say('what now?');
    expect(model.requests[2]!.transcript).toMatch(
      /Since your last turn \(from Drover, about your checklist\):\n- .*Fix the bug/,
    );
    await say('and now?');
    expect(model.requests[3]!.transcript).not.toContain('Since your last turn');
  });
});

describe('background work linked to a work item', () => {
  it('a linked task that fails marks its item blocked, says so in the wake, and the item names the tasks serving it', async () => {
    const { model, say, turnsEnded, call, session } = await setupAgent();
    model.enqueue(
      { toolCalls: [{ name: 'task_create', args: { subject: 'Make the build pass' } }] },
      {
        toolCalls: [
          {
            name: 'run_command',
            args: { command: 'echo broken; exit 2', background: true, notify_on_finish: true, work_item_id: 1 },
          },
        ],
      },
      { toolCalls: [{ name: 'run_command', args: { command: 'true', background: true, workItemId: 99 } }] },
      { text: 'Waiting.' },
      // The wake turn:
      { toolCalls: [{ name: 'task_get', args: { task_id: 1 } }] },
      { text: 'The build is blocked.' },
    );
    await say('Make the build pass');
    expect(model.requests[3]!.transcript).toMatch(/Work item 99 .*|No work item 99/);
    await until(() => turnsEnded() >= 2, 'the wake', 15_000);
    const wake = model.requests[4]!.transcript;
    expect(wake).toMatch(/bg_1 \(echo broken; exit 2\): failed, exit code 2, .*its work item 1 is now marked blocked/);
    const item = (await call('getWorkItem', { listId: session.id, itemId: 1 })) as { blockedReason: string };
    expect(item.blockedReason).toBe('bg_1 (echo broken; exit 2) failed, exit code 2');
    expect(model.requests[5]!.transcript).toMatch(
      /blocked_reason: bg_1 \(echo broken; exit 2\) failed, exit code 2[\s\S]*tasks serving it: \nbg_1 \(failed\): echo broken; exit 2/,
    );
  });
});
