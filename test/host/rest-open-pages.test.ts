import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices } from '../../electron/core/services.js';
import { startHostServer } from '../../electron/host/server.js';
import { seedBigSession } from '../../e2e/seed-session.js';
import { tempDir } from '../helpers.js';
import { REST_TOKEN, restAuth } from './rest-harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SESSION = 's_pages';

/** A host over a data folder that already holds a session with many finished tasks and messages. */
async function seededHost(finished: number, messages: number) {
  const dataDir = tempDir();
  seedBigSession(dataDir, { session: SESSION, finished, messages, lastText: 'the last word' });
  const services = createServices({ dataDir, version: '1', host: 'headless', workingDir: dataDir });
  const server = await startHostServer({
    endpoint: services,
    token: REST_TOKEN,
    port: 0,
    staticDir: join(dataDir, 'ui'),
  });
  cleanups.push(async () => {
    await server.close();
    await services.shutdown();
  });
  const base = `http://127.0.0.1:${server.port}/api`;
  return async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers: restAuth });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
}

describe('opening a big session over REST, in pages', () => {
  it('gives the newest messages before a message, oldest first, and refuses a bad limit naming it', async () => {
    const get = await seededHost(10, 40);
    const all = await get(`/sessions/${SESSION}/messages`);
    expect(all.body).toHaveLength(40);
    const last = await get(`/sessions/${SESSION}/messages?limit=5`);
    expect(last.body.map((m: { id: number }) => m.id)).toEqual(all.body.slice(-5).map((m: { id: number }) => m.id));
    expect(last.body[4].text).toBe('the last word');
    const before = await get(`/sessions/${SESSION}/messages?limit=3&before_id=${last.body[0].id}`);
    expect(before.body.map((m: { id: number }) => m.id)).toEqual(
      all.body.slice(-8, -5).map((m: { id: number }) => m.id),
    );
    const bad = await get(`/sessions/${SESSION}/messages?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe('limit');
  });

  it('opens with the counts and a first page, then walks every finished row once with ?after=', async () => {
    const get = await seededHost(130, 4);
    const open = await get(`/sessions/${SESSION}/background-tasks/open?limit=50`);
    expect(open.status).toBe(200);
    expect(open.body.live).toEqual([]);
    // The seed fails every ninth task: 15 of 130.
    expect(open.body.counts).toMatchObject({ all: 130, failed: 15, succeeded: 115 });
    expect(open.body.newest).toBe(130);
    expect(open.body.finished.tasks).toHaveLength(50);
    expect(open.body.finished.next).toMatch(/^\d+\.\d+$/);

    const seen = open.body.finished.tasks.map((task: { id: string }) => task.id);
    let next: string | null = open.body.finished.next;
    while (next !== null) {
      const page = await get(`/sessions/${SESSION}/background-tasks/finished?limit=50&after=${next}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.tasks.map((task: { id: string }) => task.id));
      next = page.body.next;
    }
    expect(seen).toHaveLength(130);
    expect(new Set(seen).size).toBe(130);
    // Newest first.
    expect(seen[0]).toBe('bg_130');
    expect(seen[129]).toBe('bg_1');

    const failed = await get(`/sessions/${SESSION}/background-tasks/finished?filter=failed&limit=500`);
    expect(failed.body.tasks).toHaveLength(15);
    expect(failed.body.next).toBeNull();
  });

  it('names the field of a bad cursor, filter or limit, and a session it does not know', async () => {
    const get = await seededHost(3, 2);
    const cursor = await get(`/sessions/${SESSION}/background-tasks/finished?after=yesterday`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.path).toBe('after');
    const filter = await get(`/sessions/${SESSION}/background-tasks/open?filter=bogus`);
    expect(filter.status).toBe(400);
    expect(filter.body.error.path).toBe('filter');
    const limit = await get(`/sessions/${SESSION}/background-tasks/finished?limit=501`);
    expect(limit.status).toBe(400);
    expect(limit.body.error.path).toBe('limit');
    const unknown = await get('/sessions/s_nobody/background-tasks/open');
    expect(unknown.status).toBe(404);
  });
});
