import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contract } from '../../shared/contract.js';
import { createApi, createCallApi } from '../../shared/ipc/client.js';
import type { DroverContract } from '../../shared/contract.js';
import { defineContract, event, request } from '../../shared/ipc/define.js';
import { DroverError } from '../../shared/ipc/errors.js';
import { connectInMemory } from '../../shared/ipc/memory.js';
import { createRouter } from '../../electron/ipc/router.js';
import { EventBus } from '../../electron/core/event-bus.js';
import { createServices } from '../../electron/core/services.js';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sqliteProblem } from '../../electron/store/sqlite-errors.js';
import { tempDir } from '../helpers.js';

const toy = defineContract({
  requests: {
    add: request({ input: z.object({ a: z.number(), b: z.number() }).strict(), output: z.number(), summary: 'a+b' }),
    boom: request({ input: z.object({}), output: z.number(), summary: 'throws' }),
    liar: request({ input: z.object({}), output: z.number(), summary: 'returns the wrong shape' }),
    missing: request({ input: z.object({ id: z.string() }), output: z.number(), summary: 'not found' }),
  },
  events: { tick: event({ payload: z.object({ n: z.number() }), summary: 'tick' }) },
});

function toyRouter(errors: unknown[] = []) {
  return createRouter(
    toy,
    {
      add: ({ a, b }) => a + b,
      boom: () => {
        throw new Error('secret internal detail');
      },
      liar: () => 'not a number' as unknown as number,
      missing: ({ id }) => {
        throw new DroverError('not_found', `No thing with id "${id}"`, { path: 'id' });
      },
    },
    { onInternalError: (_name, error) => errors.push(error) },
  );
}

describe('contract router', () => {
  it('validates input and answers with the handler result', async () => {
    const router = toyRouter();
    expect(await router.handle('add', { a: 2, b: 3 })).toEqual({ ok: true, value: 5 });
  });

  it('names the bad field of an invalid input', async () => {
    const result = await toyRouter().handle('add', { a: 2, b: 'three' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid_input');
    expect(result.error.path).toBe('b');
    expect(result.error.message).not.toContain('add'); // the field, not the internal request name
    expect(result.error.message).toContain('b:');
  });

  it('rejects unknown fields instead of ignoring them', async () => {
    const result = await toyRouter().handle('add', { a: 1, b: 1, c: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('invalid_input');
  });

  it('answers unknown requests, including prototype names, with unknown_request', async () => {
    for (const name of ['nope', 'toString', '__proto__', 'constructor']) {
      const result = await toyRouter().handle(name, {});
      expect(result).toMatchObject({ ok: false, error: { code: 'unknown_request' } });
    }
  });

  it('hides a handler crash behind an internal error and reports it', async () => {
    const errors: unknown[] = [];
    const result = await toyRouter(errors).handle('boom', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(result)).not.toContain('secret internal detail');
    expect(errors).toHaveLength(1);
  });

  it('refuses to send an answer that breaks the contract', async () => {
    const errors: unknown[] = [];
    const result = await toyRouter(errors).handle('liar', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(errors).toHaveLength(1);
  });

  it('passes typed service errors through unchanged', async () => {
    const result = await toyRouter().handle('missing', { id: 'x1' });
    expect(result).toEqual({ ok: false, error: { code: 'not_found', message: 'No thing with id "x1"', path: 'id' } });
  });

  it('answers a full database with disk_full, naming the folder, and still reports the failure', async () => {
    const file = join(tempDir(), 'drover.sqlite');
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE t (x TEXT)');
    // A page cap is SQLite's own way to fill up: the insert fails with a real SQLITE_FULL.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
    const errors: unknown[] = [];
    const router = createRouter(
      toy,
      {
        add: () => db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000)).changes,
        boom: () => 0,
        liar: () => 0,
        missing: () => 0,
      },
      { onInternalError: (_name, error) => errors.push(error), mapError: (error) => sqliteProblem(error, file) },
    );
    const result = await router.handle('add', { a: 1, b: 2 });
    db.close();
    expect(result).toMatchObject({ ok: false, error: { code: 'disk_full' } });
    if (result.ok) return;
    expect(result.error.message).toContain(`The disk holding ${join(file, '..')} is full`);
    expect(errors).toEqual([expect.objectContaining({ code: 'SQLITE_FULL' })]);
  });

  it('keeps the internal answer when the mapper does not recognise the failure (or throws)', async () => {
    for (const mapError of [
      () => null,
      () => {
        throw new Error('mapper bug');
      },
    ]) {
      const router = createRouter(
        toy,
        {
          add: ({ a, b }) => a + b,
          boom: () => {
            throw new Error('plain bug');
          },
          liar: () => 0,
          missing: () => 0,
        },
        { onInternalError: () => {}, mapError },
      );
      expect(await router.handle('boom', {})).toMatchObject({ ok: false, error: { code: 'internal' } });
    }
  });
});

describe('typed client over the in-memory transport', () => {
  it('runs the real services and throws DroverError on failure', async () => {
    const dataDir = tempDir();
    const services = createServices({ dataDir, version: '9.9.9', host: 'headless', workingDir: dataDir });
    try {
      const api = createApi(contract, connectInMemory(services));
      const seen: string[] = [];
      const off = api.on('sessionUpserted', ({ session }) => seen.push(session.title));
      const created = await api.createSession({ title: 'First' });
      expect(created.title).toBe('First');
      expect((await api.listSessions()).map((s) => s.id)).toEqual([created.id]);
      expect(seen).toEqual(['First']);
      off();
      await api.createSession();
      expect(seen).toEqual(['First']);
      await expect(api.getSession({ id: 'unknown1' })).rejects.toMatchObject({
        name: 'DroverError',
        code: 'not_found',
      });
      await expect(api.createSession({ title: '   ' })).rejects.toMatchObject({ code: 'invalid_input', path: 'title' });
      expect((await api.appInfo()).version).toBe('9.9.9');
    } finally {
      await services.shutdown();
    }
  });

  it("the page's api, built without the contract's value, makes the same calls and errors", async () => {
    const dataDir = tempDir();
    const services = createServices({ dataDir, version: '9.9.9', host: 'headless', workingDir: dataDir });
    try {
      const api = createCallApi<DroverContract>(connectInMemory(services));
      // Generic code that awaits or serialises it must not send requests named "then" or "toJSON".
      expect(await Promise.resolve(api)).toBe(api);
      expect(JSON.stringify({ api })).toBe('{"api":{}}');
      const seen: string[] = [];
      const off = api.on('sessionUpserted', ({ session }) => seen.push(session.title));
      const created = await api.createSession({ title: 'First' });
      expect(api.createSession).toBe(api.createSession);
      expect((await api.listSessions()).map((s) => s.id)).toEqual([created.id]);
      expect(seen).toEqual(['First']);
      off();
      await expect(api.getSession({ id: 'unknown1' })).rejects.toMatchObject({
        name: 'DroverError',
        code: 'not_found',
      });
      await expect(api.createSession({ title: '   ' })).rejects.toMatchObject({ code: 'invalid_input', path: 'title' });
      // A name the contract lacks (a type error in the page's code) is refused by the server, by name.
      const loose = api as unknown as Record<string, () => Promise<unknown>>;
      await expect(loose.noSuchRequest!()).rejects.toMatchObject({ code: 'unknown_request' });
    } finally {
      await services.shutdown();
    }
  });

  it('refuses to subscribe to an event the contract does not name', () => {
    const bus = new EventBus(toy);
    const api = createApi(
      toy,
      connectInMemory({ handle: async () => ({ ok: true, value: 1 }), subscribe: (l) => bus.subscribe(l) }),
    );
    expect(() => api.on('nope' as 'tick', () => {})).toThrow(/Unknown event/);
  });

  it('event bus checks payloads against the contract', () => {
    const bus = new EventBus(toy);
    expect(() => bus.emit('tick', { n: 'x' } as unknown as { n: number })).toThrow();
    const got: unknown[] = [];
    bus.subscribe((_name, payload) => got.push(payload));
    bus.emit('tick', { n: 1 });
    expect(got).toEqual([{ n: 1 }]);
  });
});
