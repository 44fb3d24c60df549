import { describe, expect, it } from 'vitest';
import { startRestHost } from './rest-harness.js';

describe('REST: schedules and loops', () => {
  it('starts a loop, lists it with the documented fields, pauses, deletes; names bad input; durable jobs apart', async () => {
    const { call } = await startRestHost();
    const session = (await call('POST', '/sessions', {})).body.id as string;
    const started = await call('POST', `/sessions/${session}/loops`, { args: 'check the deploy every 2h' });
    expect(started.status).toBe(201);
    expect(started.body.confirmation).toMatch(/every 2 hours/);
    const id = started.body.schedule.id as string;

    const listed = await call('GET', `/sessions/${session}/schedules`);
    expect(listed.status).toBe(200);
    expect(listed.body.held).toBe(false);
    expect(listed.body.schedules).toEqual([
      expect.objectContaining({
        id,
        kind: 'loop',
        cron: expect.stringMatching(/^\d+ \d+-23\/2 \* \* \*$/),
        prompt: 'check the deploy',
        next_fire_at: expect.any(String),
        expires_at: expect.any(String),
        durable: false,
        paused: false,
      }),
    ]);

    expect((await call('PATCH', `/schedules/${id}`, { paused: true })).body.paused).toBe(true);
    expect((await call('PATCH', `/schedules/${id}`, { paused: 'yes' })).body.error.message).toMatch(/paused/);
    expect((await call('GET', '/schedules/durable')).body).toEqual({ schedules: [], held: false });
    expect((await call('GET', '/schedules/held')).body).toEqual({ held: [] });

    const bad = await call('DELETE', `/sessions/${session}/schedules/NOPE`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/id/);
    expect((await call('DELETE', `/sessions/${session}/schedules/abcd1234`)).status).toBe(404);
    const deleted = await call('DELETE', `/sessions/${session}/schedules/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.schedule.id).toBe(id);
    expect((await call('GET', `/sessions/${session}/schedules`)).body.schedules).toEqual([]);
    expect((await call('GET', '/sessions/nope/schedules')).status).toBe(404);
  });

  it('answers the budget for unattended turns, and resumes it', async () => {
    const { call } = await startRestHost();
    const session = (await call('POST', '/sessions', {})).body.id as string;
    const budget = await call('GET', `/sessions/${session}/budget`);
    expect(budget.body).toEqual({
      session_id: session,
      turns_used: 0,
      turns_max: 50,
      tokens_used: 0,
      tokens_max: 2_000_000,
      warned: false,
      spent: false,
    });
    await call('PUT', '/settings', { budget: { turns: 7 } });
    expect((await call('POST', `/sessions/${session}/budget/resume`)).body).toMatchObject({ turns_max: 7 });
    expect((await call('GET', '/sessions/nope/budget')).status).toBe(404);
    expect((await call('PUT', '/settings', { budget: { turns: 0 } })).body.error.message).toMatch(/budget\.turns/);
  });

  it('deleting a session deletes its schedules', async () => {
    const { call } = await startRestHost();
    const session = (await call('POST', '/sessions', {})).body.id as string;
    const id = (await call('POST', `/sessions/${session}/loops`, { args: '10m tidy' })).body.schedule.id as string;
    expect((await call('DELETE', `/sessions/${session}`)).status).toBe(200);
    expect((await call('POST', `/schedules/${id}/run`)).status).toBe(404);
  });
});
