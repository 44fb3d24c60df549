import { describe, expect, it } from 'vitest';
import { contract } from '../../shared/contract.js';
import { DEFAULT_SESSION_TITLE } from '../../shared/schemas/session.js';
import { EventBus } from '../../electron/core/event-bus.js';
import { openDatabase } from '../../electron/store/database.js';
import { AUTO_TITLE_MAX, SessionsService, titleFrom } from '../../electron/sessions/sessions-service.js';
import { tempDir } from '../helpers.js';
import { migrations } from '../../electron/store/migrations/index.js';

function setup() {
  let now = 1_000_000;
  const db = openDatabase(':memory:');
  const bus = new EventBus(contract);
  const events: [string, unknown][] = [];
  bus.subscribe((name, payload) => events.push([name, payload]));
  const service = new SessionsService(db, bus, { now: () => (now += 1000) });
  return { db, service, events };
}

describe('sessions service', () => {
  it('lists sessions most recently updated first', () => {
    const { service } = setup();
    const a = service.create('A');
    const b = service.create('B');
    expect(service.list().map((s) => s.title)).toEqual(['B', 'A']);
    service.postUserMessage(a.id, 'bump');
    expect(service.list().map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it('gives ids that are short, url-safe and distinct', () => {
    const { service } = setup();
    const ids = new Set(Array.from({ length: 200 }, () => service.create().id));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]{12}$/);
  });

  it('titles an untitled session from its first message, once', () => {
    const { service } = setup();
    const session = service.create();
    expect(session.title).toBe(DEFAULT_SESSION_TITLE);
    service.postUserMessage(session.id, '  Fix the flaky   build\nmore detail');
    expect(service.get(session.id).title).toBe('Fix the flaky build');
    service.postUserMessage(session.id, 'Another thing');
    expect(service.get(session.id)).toMatchObject({ title: 'Fix the flaky build', messageCount: 2 });
  });

  it('keeps a title the person chose', () => {
    const { service } = setup();
    const session = service.create('Mine');
    service.postUserMessage(session.id, 'hello');
    expect(service.get(session.id).title).toBe('Mine');
  });

  it('emits events for every change', () => {
    const { service, events } = setup();
    const session = service.create('T');
    service.rename(session.id, 'U');
    service.postUserMessage(session.id, 'hi');
    service.delete(session.id);
    expect(events.map(([name]) => name)).toEqual([
      'sessionUpserted',
      'sessionUpserted',
      'messageAdded',
      'sessionUpserted',
      'sessionDeleted',
    ]);
  });

  it('deletes a session with its transcript', () => {
    const { service, db } = setup();
    const session = service.create();
    service.postUserMessage(session.id, 'one');
    service.delete(session.id);
    expect(db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 0 });
    expect(() => service.get(session.id)).toThrow(/No session with id/);
  });

  it('marks a turn an earlier run left mid-stream as cancelled when it starts', () => {
    const { service, db } = setup();
    const session = service.create();
    const streaming = service.append({
      sessionId: session.id,
      role: 'assistant',
      text: 'half a sent',
      status: 'streaming',
    });
    const running = service.append({
      sessionId: session.id,
      role: 'tool',
      text: 'make',
      toolName: 'run_command',
      toolCallId: 'c1',
      status: 'running',
    });
    const again = new SessionsService(db, new EventBus(contract));
    expect(
      again
        .messages(session.id)
        .filter((m) => m.id === streaming.id || m.id === running.id)
        .map((m) => m.status),
    ).toEqual(['cancelled', 'cancelled']);
  });

  it('answers unknown ids with not_found for every operation', () => {
    const { service } = setup();
    for (const call of [
      () => service.get('nope'),
      () => service.require('nope'),
      () => service.rename('nope', 'x'),
      () => service.delete('nope'),
      () => service.messages('nope'),
      () => service.postUserMessage('nope', 'x'),
    ]) {
      expect(call).toThrow(expect.objectContaining({ code: 'not_found' }));
    }
  });

  it('requires a stored session without reading it: a deleted one is not found', () => {
    const { service } = setup();
    const session = service.create('kept');
    service.postUserMessage(session.id, 'hello');
    expect(() => service.require(session.id)).not.toThrow();
    service.delete(session.id);
    expect(() => service.require(session.id)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('reports a damaged row by id instead of returning a wrong value, and loses nothing', () => {
    const { service, db } = setup();
    const session = service.create('ok');
    service.postUserMessage(session.id, 'fine');
    db.prepare("UPDATE messages SET role = 'robot'").run();
    expect(() => service.messages(session.id)).toThrow(/Unreadable message row 1: role/);
    expect(db.prepare('SELECT text FROM messages').get()).toEqual({ text: 'fine' });
  });
});

describe('titleFrom', () => {
  it('cuts long first lines at a word', () => {
    const long = 'word '.repeat(40);
    const title = titleFrom(long);
    expect(title.length).toBeLessThanOrEqual(AUTO_TITLE_MAX + 1);
    expect(title.endsWith('…')).toBe(true);
    expect(title).not.toContain('  ');
  });
  it('uses the first line that has text', () => {
    expect(titleFrom('\n\n  second\nthird')).toBe('second');
  });

  it('never carries control or direction characters from the message into the title', () => {
    expect(titleFrom('run \u001b[31mred\u0000 now\u202e')).toBe('run [31mred now');
  });
});

describe('session titles at the boundary', () => {
  const rename = contract.requests.renameSession.input;
  it.each([
    ['NUL', 'a\u0000b'],
    ['ESC', 'a\u001b[2Jb'],
    ['DEL', 'a\u007fb'],
    ['a C1 control', 'a\u009bb'],
    ['a bidi override', 'a\u202eb'],
    ['a line separator', 'a\u2028b'],
  ])('refuses a title holding %s, naming the field', (_name, title) => {
    const result = rename.safeParse({ id: 'abc', title });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['title']);
    expect(result.error?.issues[0]?.message).toMatch(/control characters/);
  });

  it('accepts ordinary text, accents, emoji and right-to-left letters', () => {
    for (const title of ['Build the app', 'Café déjà vu', 'Deploy 🚀', 'שלום עולם']) {
      expect(rename.safeParse({ id: 'abc', title }).success, title).toBe(true);
    }
  });
});

describe('plan mode', () => {
  it('is off for a new session; a switch is stored, noted once in the transcript, and keeps the session in place', () => {
    const { service, events } = setup();
    const a = service.create('A');
    const b = service.create('B');
    expect(a.mode).toBe('agent');
    const updatedAt = service.get(a.id).updatedAt;
    events.length = 0;

    expect(service.setMode(a.id, 'plan')).toMatchObject({ id: a.id, mode: 'plan', updatedAt });
    expect(service.list().map((s) => s.id)).toEqual([b.id, a.id]);
    expect(service.messages(a.id)).toEqual([
      expect.objectContaining({ role: 'system', text: expect.stringMatching(/^Plan mode is on\./) }),
    ]);
    expect(events.map(([name]) => name)).toEqual(['messageAdded', 'sessionUpserted']);

    // The same mode again: nothing changes and nothing is said.
    service.setMode(a.id, 'plan');
    expect(service.messages(a.id)).toHaveLength(1);
    service.setMode(a.id, 'agent');
    expect(service.get(a.id).mode).toBe('agent');
    expect(service.messages(a.id).at(-1)!.text).toMatch(/^Plan mode is off/);
    expect(() => service.setMode('nope', 'plan')).toThrow(/nope/);
  });

  it('migrates a version-10 database with sessions in it: each is kept, in agent mode', () => {
    const path = `${tempDir()}/drover.sqlite`;
    const v10 = openDatabase(path, migrations.slice(0, 10));
    v10.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('old', 'Kept', 1, 1)").run();
    v10.close();
    const db = openDatabase(path);
    expect(new SessionsService(db, new EventBus(contract)).get('old')).toMatchObject({ title: 'Kept', mode: 'agent' });
    expect(() => db.prepare("UPDATE sessions SET mode = 'build' WHERE id = 'old'").run()).toThrow(/CHECK/);
    db.close();
  });

  it('survives reopening the database', () => {
    const path = `${tempDir()}/drover.sqlite`;
    const first = openDatabase(path);
    const service = new SessionsService(first, new EventBus(contract));
    const session = service.create('Kept');
    service.setMode(session.id, 'plan');
    first.close();
    const again = openDatabase(path);
    expect(new SessionsService(again, new EventBus(contract)).get(session.id).mode).toBe('plan');
    again.close();
  });
});
