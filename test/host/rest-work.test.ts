import { describe, expect, it } from 'vitest';
import { startRestHost } from './rest-harness.js';

describe('REST: work items', () => {
  it('creates, lists, completes (naming what it unblocked), merges metadata and deletes, with the tools’ validation', async () => {
    const { call } = await startRestHost();
    const base = '/work-lists/team.board/items';
    const first = await call('POST', base, { subject: 'Write the schema', owner: 'ana' });
    expect(first.status).toBe(201);
    expect(first.body.item).toMatchObject({ id: 1, list_id: 'team.board', status: 'pending', owner: 'ana' });
    const second = await call('POST', base, { subject: 'Build the API', blocked_by: [1], metadata: { area: 'api' } });
    expect(second.body.item).toMatchObject({ id: 2, blocked_by: [1], metadata: { area: 'api' } });
    expect((await call('GET', `${base}/1`)).body).toMatchObject({ id: 1, blocks: [2] });

    const listed = await call('GET', base);
    expect(listed.body.items.map((item: { id: number; blocked_by: number[] }) => [item.id, item.blocked_by])).toEqual([
      [1, []],
      [2, [1]],
    ]);
    expect(listed.body.tally).toEqual({ pending: 2, in_progress: 0, completed: 0, total: 2 });

    await call('PATCH', `${base}/1`, { status: 'in_progress' });
    const done = await call('PATCH', `${base}/1`, { status: 'completed' });
    expect(done.body.unblocked).toEqual([{ id: 2, subject: 'Build the API' }]);
    const merged = await call('PATCH', `${base}/2`, { metadata: { area: null, pr: 42 } });
    expect(merged.body.item.metadata).toEqual({ pr: 42 });
    expect(
      (await call('GET', `${base}?include_completed=false`)).body.items.map((item: { id: number }) => item.id),
    ).toEqual([2]);

    const cycle = await call('PATCH', `${base}/1`, { add_blocked_by: [2] });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.message).toMatch(/would make a cycle/);
    const unknown = await call('POST', base, { subject: 'x', blocked_by: [9] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/blocked_by/);
    expect((await call('GET', `${base}/abc`)).status).toBe(400);
    expect((await call('POST', base, { subject: '' })).body.error.message).toMatch(/^Invalid input: subject/);

    expect((await call('DELETE', `${base}/2`)).status).toBe(200);
    expect((await call('GET', `${base}/2`)).status).toBe(404);
    expect((await call('GET', `${base}/1`)).body.blocks).toEqual([]);
    expect((await call('POST', base, { subject: 'Next' })).body.item.id).toBe(3);
  });
});

describe('REST: the session checklist', () => {
  it('answers items with active_form, and a PUT is the person’s: removals stick against the model’s resend', async () => {
    const { call, session } = await startRestHost();
    expect((await call('GET', `/sessions/${session}/todos`)).body).toEqual({
      items: [],
      removed_by_person: [],
      completed_by_person: [],
      updated_at: null,
    });
    const plan = [
      { content: 'Read the code', status: 'completed', active_form: 'Reading the code' },
      { content: 'Fix the bug', status: 'in_progress', active_form: 'Fixing the bug' },
      { content: 'Update the docs', status: 'pending', active_form: 'Updating the docs' },
    ];
    const put = await call('PUT', `/sessions/${session}/todos`, { items: plan });
    expect(put.status).toBe(200);
    expect(put.body.checklist.items[1]).toEqual({
      content: 'Fix the bug',
      status: 'in_progress',
      active_form: 'Fixing the bug',
    });
    // The person drops the docs item (the model's resend is in test/agent/planning.test.ts).
    await call('PUT', `/sessions/${session}/todos`, { items: plan.slice(0, 2) });
    const after = await call('GET', `/sessions/${session}/todos`);
    expect(after.body.removed_by_person).toEqual(['Update the docs']);
    const bad = await call('PUT', `/sessions/${session}/todos`, {
      items: [{ content: 'x', status: 'done', active_form: 'x' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^Invalid input: items\.0\.status/);
  });
});

describe('REST: a work item’s metadata keys are the caller’s own', () => {
  it('keeps snake_case and camelCase keys as sent, both ways, and deletes the key named', async () => {
    const { call } = await startRestHost();
    const base = '/work-lists/meta/items';
    const made = await call('POST', base, { subject: 'x', metadata: { build_id: 7, buildId: 8, nested: { a_b: 1 } } });
    expect(made.status).toBe(201);
    expect(made.body.item.metadata).toEqual({ build_id: 7, buildId: 8, nested: { a_b: 1 } });
    const patched = await call('PATCH', `${base}/1`, { metadata: { build_id: null } });
    expect(patched.body.item.metadata).toEqual({ buildId: 8, nested: { a_b: 1 } });
    expect((await call('GET', `${base}/1`)).body.metadata).toEqual({ buildId: 8, nested: { a_b: 1 } });
  });
});

describe('REST: plan mode', () => {
  it('is switched by PUT /sessions/{id}/mode, answers the session, and names a bad mode', async () => {
    const { call } = await startRestHost();
    const session = (await call('POST', '/sessions', {})).body;
    expect(session.mode).toBe('agent');
    const on = await call('PUT', `/sessions/${session.id}/mode`, { mode: 'plan' });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: session.id, mode: 'plan' });
    expect((await call('GET', `/sessions/${session.id}`)).body.mode).toBe('plan');
    const messages = (await call('GET', `/sessions/${session.id}/messages`)).body;
    expect(messages.map((message: { role: string; text: string }) => message.role)).toEqual(['system']);

    const bad = await call('PUT', `/sessions/${session.id}/mode`, { mode: 'build' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/mode/);
    expect((await call('PUT', `/sessions/${session.id}/mode`, {})).status).toBe(400);
    expect((await call('PUT', '/sessions/nope/mode', { mode: 'agent' })).status).toBe(404);
    expect((await call('GET', `/sessions/${session.id}`)).body.mode).toBe('plan');
  });
});
