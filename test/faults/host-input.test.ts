import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TEST_TOKEN } from '../host/spawn-host.js';
import { auth, expectHealthyThenStop, hostWithBigTask, rawRequest, type Fixture } from './host-harness.js';

let fixture: Fixture | undefined;
afterEach(async () => {
  if (fixture && fixture.host.child.exitCode === null) await fixture.host.stop('SIGKILL');
  fixture = undefined;
});

describe('a real host refuses bad names and bad bodies clearly', () => {
  it('answers 421 to a Host that is not its own, before the token is looked at (DNS rebinding)', async () => {
    const f = (fixture = await hostWithBigTask());
    for (const host of [`evil.example:${f.port}`, `127.0.0.1:${f.port + 1}`, `localhost`, `[::1]:${f.port}`]) {
      // With the right token and without one: the name alone decides.
      expect(
        (
          await rawRequest(f.port, {
            path: '/api/sessions',
            headers: { Host: host, Authorization: `Bearer ${TEST_TOKEN}` },
          })
        ).status,
      ).toBe(421);
      const refused = await rawRequest(f.port, { path: '/api/info', headers: { Host: host } });
      expect(refused.status).toBe(421);
      expect(JSON.parse(refused.body).error).toMatchObject({
        code: 'misdirected',
        message: expect.stringContaining(host),
      });
      expect((await rawRequest(f.port, { path: '/', headers: { Host: host } })).status).toBe(421);
    }
    const upgrade = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${f.port}/ws?token=${TEST_TOKEN}`, {
        headers: { Host: `evil.example:${f.port}` },
      });
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => resolve(101));
      ws.once('error', () => resolve(-1));
    });
    expect(upgrade).toBe(421);
    // Our own names still work, either spelling.
    expect(
      (await rawRequest(f.port, { path: '/api/info', headers: { ...auth(f.port), Host: `localhost:${f.port}` } }))
        .status,
    ).toBe(200);
    await expectHealthyThenStop(f);
  });

  it('refuses JSON nested deeper than the limit with a 400 naming it (it used to overflow the stack: 500)', async () => {
    const f = (fixture = await hostWithBigTask());
    const deep = `{"title": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const answer = await rawRequest(f.port, {
      method: 'POST',
      path: '/api/sessions',
      headers: auth(f.port),
      body: deep,
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('64 levels'),
    });
    // Within the limit, the same body is judged by its schema, field named.
    const shallow = await rawRequest(f.port, {
      method: 'POST',
      path: '/api/sessions',
      headers: auth(f.port),
      body: '{"title": [[1]]}',
    });
    expect(shallow.status).toBe(400);
    expect(JSON.parse(shallow.body).error.path).toBe('title');
    await expectHealthyThenStop(f);
  });

  it('refuses one field in two spellings, naming both, over REST; unknown keys anywhere are named too', async () => {
    const f = (fixture = await hostWithBigTask());
    const path = `/api/sessions/${f.sessionId}/background-tasks`;
    const both = await rawRequest(f.port, {
      method: 'POST',
      path,
      headers: auth(f.port),
      body: '{"command": "true", "timeoutSeconds": 5, "timeout_seconds": 9}',
    });
    expect(both.status).toBe(400);
    const error = JSON.parse(both.body).error;
    expect(error.message).toContain('"timeoutSeconds"');
    expect(error.message).toContain('"timeout_seconds"');
    // No task was started by the refused body.
    const { tasks } = await f.host.call('GET', `/sessions/${f.sessionId}/background-tasks`);
    expect(tasks).toHaveLength(1);
    const settings = await rawRequest(f.port, {
      method: 'PUT',
      path: '/api/settings',
      headers: auth(f.port),
      body: '{"provider": {"kind": "anthropic", "model": "m", "colour": "blue"}}',
    });
    expect(settings.status).toBe(400);
    expect(JSON.parse(settings.body).error).toMatchObject({ path: 'provider.colour' });
    expect((await f.host.call('GET', '/settings')).provider).toBeNull();
    await expectHealthyThenStop(f);
  });
});
