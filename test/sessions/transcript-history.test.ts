import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import type { Message } from '../../shared/schemas/message.js';
import { SNAPSHOT_OUTPUT_BYTES } from '../../shared/schemas/message.js';
import type { ShellResult } from '../../shared/contract.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { createServices, type Services } from '../../electron/core/services.js';
import { DATABASE_FILE, openDatabase } from '../../electron/store/database.js';
import { migrations } from '../../electron/store/migrations/index.js';
import { MessagesRepo } from '../../electron/store/messages-repo.js';
import { capOutput } from '../../electron/sessions/task-snapshots.js';
import { startOpenAiCompatibleServer } from '../../e2e/fake-model/index.js';
import { tempDir, until } from '../helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function start(policy: object = {}) {
  const dataDir = tempDir();
  const services: Services = createServices({
    dataDir,
    version: 't',
    host: 'headless',
    workingDir: dataDir,
    env: {},
    warn: () => {},
    policy: { stopGraceMs: 500, ...policy },
  });
  cleanups.push(() => services.shutdown());
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const result = await services.handle(name, input);
    if (!result.ok) throw Object.assign(new Error(`${name}: ${result.error.message}`), { code: result.error.code });
    return result.value as T;
  };
  const session = services.sessions.create();
  const rows = () => services.sessions.messages(session.id).filter((m) => m.role === 'tool');
  return { dataDir, services, call, session, rows };
}

describe('migration 0007: tool rows keep their task and the person’s words', () => {
  it('migrates a version-6 database with transcript rows in it, keeping every row, the new fields empty', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const v6 = openDatabase(file, migrations.slice(0, 6));
    v6.prepare('INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run('s1', 'Old', 1, 2);
    const insert = v6.prepare(
      'INSERT INTO messages (session_id, role, text, task_id, tool_name, tool_result, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    insert.run('s1', 'tool', 'make', 'bg_1', null, null, 'done', 3);
    insert.run(
      's1',
      'tool',
      'sleep 60',
      'bg_2',
      'run_command',
      '<untrusted-output nonce="n">x</untrusted-output>',
      'done',
      4,
    );
    v6.close();

    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const messages = new MessagesRepo(db).list('s1');
    expect(messages.map((m) => [m.text, m.taskId, m.toolResult, m.display, m.taskSnapshot])).toEqual([
      ['make', 'bg_1', null, null, null],
      ['sleep 60', 'bg_2', '<untrusted-output nonce="n">x</untrusted-output>', null, null],
    ]);
    // The rows of a task are found by an index, not by a scan of the transcript.
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT id FROM messages WHERE session_id = 's1' AND task_id = 'bg_1'")
      .all() as { detail: string }[];
    expect(plan.map((step) => step.detail).join()).toContain('messages_by_task');
    db.close();
  });

  it('names a damaged snapshot instead of showing a transcript with a silent gap', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const db = openDatabase(file);
    db.prepare('INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run('s1', 'T', 1, 2);
    const repo = new MessagesRepo(db);
    const row = repo.insert({ sessionId: 's1', role: 'tool', text: 'ls', now: 1, taskId: 'bg_1' });
    db.close();
    const raw = new BetterSqlite3(file);
    raw.prepare('UPDATE messages SET task_snapshot = ? WHERE id = ?').run('{"status": 1', row.id);
    raw.close();
    const again = openDatabase(file);
    expect(() => new MessagesRepo(again).list('s1')).toThrow(/task snapshot of message \d+ is damaged/);
    again.close();
  });
});

describe('snapshots: the transcript survives Clear', () => {
  it('keeps the command, status, exit, times and output of ! and & rows through Clear; deleting the session still deletes them', async () => {
    const { services, call, session, rows } = start();
    await call<ShellResult>('runShell', { sessionId: session.id, command: 'printf "one\\ntwo\\n"; exit 3' });
    const bg = await call<ShellResult>('runShell', {
      sessionId: session.id,
      command: 'echo in-the-background',
      background: true,
    });
    await until(() => rows().every((m) => m.taskSnapshot !== null), 'both rows to keep their task', 10_000);
    const [fg, back] = rows();
    expect(fg!.taskSnapshot).toMatchObject({
      command: 'printf "one\\ntwo\\n"; exit 3',
      status: 'failed',
      exitCode: 3,
      foreground: true,
      output: { text: expect.stringContaining('one\ntwo'), truncated: false },
    });
    expect(fg!.taskSnapshot!.startedAt).not.toBeNull();
    expect(fg!.taskSnapshot!.endedAt).not.toBeNull();
    expect(back!.taskSnapshot).toMatchObject({ taskId: bg.task.id, status: 'succeeded', exitCode: 0 });
    expect(back!.taskSnapshot!.output.text).toContain('in-the-background');

    const logPath = services.pool.row(session.id, bg.task.id).logPath;
    const { removed } = await call<{ removed: string[] }>('clearFinishedTasks', { sessionId: session.id });
    expect(removed).toHaveLength(2);
    expect(existsSync(logPath)).toBe(false);
    // The list and the logs are gone; what the transcript showed is not.
    expect(rows().map((m) => m.taskSnapshot?.status)).toEqual(['failed', 'succeeded']);
    expect(rows()[0]!.taskSnapshot!.output.text).toContain('two');

    await call('deleteSession', { id: session.id });
    const left = services.sessions.list().find((s) => s.id === session.id);
    expect(left).toBeUndefined();
  });

  it('a task that settled while nothing captured it is kept at Clear', async () => {
    const { services, call, session, rows } = start();
    const bg = await call<ShellResult>('runShell', { sessionId: session.id, command: 'echo late', background: true });
    await until(() => services.pool.row(session.id, bg.task.id).status === 'succeeded', 'the task to end');
    // Forget the capture (as a row whose task settled in an earlier run would lack it).
    await until(() => rows()[0]!.taskSnapshot !== null, 'the capture');
    services.sessions.update(rows()[0]!.id, { taskSnapshot: null });
    await call('clearFinishedTasks', { sessionId: session.id });
    expect(rows()[0]!.taskSnapshot).toMatchObject({
      status: 'succeeded',
      output: { text: expect.stringContaining('late') },
    });
  });

  it('a task whose capture fails is not cleared: it, its log and its row stay as they were', async () => {
    const { dataDir, services, call, session, rows } = start();
    const bg = await call<ShellResult>('runShell', { sessionId: session.id, command: 'echo kept', background: true });
    await until(() => rows()[0]!.taskSnapshot !== null, 'the capture');
    // As a row whose task settled in an earlier run: Clear itself has to record it.
    services.sessions.update(rows()[0]!.id, { taskSnapshot: null });
    // A real write failure: the database refuses every change to a transcript row (as a busy,
    // read-only or full database would), through a second connection like any other process.
    const other = new BetterSqlite3(join(dataDir, DATABASE_FILE));
    other.exec(
      "CREATE TRIGGER no_row_updates BEFORE UPDATE ON messages BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    const logPath = services.pool.row(session.id, bg.task.id).logPath;

    const answer = await call<{ removed: string[]; kept: { taskId: string; reason: string }[] }>('clearFinishedTasks', {
      sessionId: session.id,
      taskIds: [bg.task.id],
    });
    expect(answer).toEqual({
      removed: [],
      kept: [{ taskId: bg.task.id, reason: expect.stringContaining('database or disk is full') }],
    });
    expect(services.pool.row(session.id, bg.task.id).status).toBe('succeeded');
    expect(readFileSync(logPath, 'utf8')).toContain('kept');
    expect(rows()[0]!.taskSnapshot).toBeNull();

    // Once the row can be written, the same Clear records the task and then removes it.
    other.exec('DROP TRIGGER no_row_updates');
    other.close();
    expect(await call('clearFinishedTasks', { sessionId: session.id })).toEqual({ removed: [bg.task.id] });
    expect(existsSync(logPath)).toBe(false);
    expect(rows()[0]!.taskSnapshot).toMatchObject({ status: 'succeeded', output: { text: 'kept' } });
  });

  it('Clear without ids leaves a task that settles after the check, to be recorded first', async () => {
    const { dataDir, services, call, session, rows } = start();
    const done = await call<ShellResult>('runShell', {
      sessionId: session.id,
      command: 'echo first',
      background: true,
    });
    const late = untilFile(dataDir, 'go-late');
    const running = await call<ShellResult>('runShell', {
      sessionId: session.id,
      command: late.command,
      background: true,
    });
    await until(() => rows()[0]!.taskSnapshot !== null, 'the first capture');
    // Forget the capture behind the service's back (no event, so no capture starts but Clear's own).
    const other = new BetterSqlite3(join(dataDir, DATABASE_FILE));
    other.prepare('UPDATE messages SET task_snapshot = NULL WHERE id = ?').run(rows()[0]!.id);
    other.close();
    // Hold Clear inside its check (reading the first task's output) while the second task ends.
    let reading!: () => void;
    const held = new Promise<void>((resolve) => (reading = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const output = services.pool.output.bind(services.pool);
    vi.spyOn(services.pool, 'output').mockImplementation(async (sessionId, id, tail) => {
      if (id === done.task.id) {
        reading();
        await gate;
      }
      return output(sessionId, id, tail);
    });
    const cleared = call<{ removed: string[] }>('clearFinishedTasks', { sessionId: session.id });
    await held;
    late.release();
    await until(() => services.pool.row(session.id, running.task.id).status === 'succeeded', 'the second task to end');
    letGo();

    expect((await cleared).removed).toEqual([done.task.id]);
    expect(services.pool.row(session.id, running.task.id).status).toBe('succeeded');
    await until(() => rows()[1]!.taskSnapshot?.status === 'succeeded', 'the second task to be recorded');
    expect(rows()[1]!.taskSnapshot!.output.text).toContain('released');
  });

  it('keeps the newest lines within 32 KiB, cut where a line starts and never inside a character', () => {
    const line = `${'é'.repeat(99)}\n`; // 199 bytes a line
    const text = line.repeat(400);
    const capped = capOutput({ text, totalBytes: text.length, truncated: false });
    expect(Buffer.byteLength(capped.text)).toBeLessThanOrEqual(SNAPSHOT_OUTPUT_BYTES);
    expect(capped.truncated).toBe(true);
    expect(capped.text.startsWith('é')).toBe(true);
    expect(text.endsWith(capped.text)).toBe(true);
    const long = 'x'.repeat(SNAPSHOT_OUTPUT_BYTES * 2) + 'é';
    const cut = capOutput({ text: long, totalBytes: long.length, truncated: false });
    expect(cut.text.endsWith('xé')).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(SNAPSHOT_OUTPUT_BYTES);
    const short = { text: 'ok\n', totalBytes: 3, truncated: false };
    expect(capOutput(short)).toBe(short);
  });
});

/** A command that runs until the test creates its file: its end is an event, not a timer. */
function untilFile(dir: string, name: string): { command: string; release: () => void } {
  const file = join(dir, name);
  return {
    command: `while [ ! -f ${file} ]; do sleep 0.05; done; echo released`,
    release: () => writeFileSync(file, ''),
  };
}

describe('Background now', () => {
  it("moves the operator's running ! line to the background at once; the person is told in their own words", async () => {
    const { dataDir, services, call, session, rows } = start();
    const { command, release } = untilFile(dataDir, 'go-1');
    const answer = call<ShellResult>('runShell', { sessionId: session.id, command });
    await until(() => rows().length === 1 && rows()[0]!.taskId !== null, 'the row');
    const taskId = rows()[0]!.taskId!;
    await until(() => services.pool.row(session.id, taskId).status === 'running', 'the command to run');
    const { task } = await call<{ task: TaskRow }>('backgroundTask', { sessionId: session.id, taskId });
    expect(task).toMatchObject({ id: taskId, status: 'running', adopted: true });
    const result = await answer;
    expect(result.notice).toMatch(
      /^Moved to the background at your request after \d+ s: it keeps running as task bg_\d+/,
    );
    expect(result.notice).not.toMatch(/GET |Do NOT|read_task_output|stop_task/);
    expect(rows()[0]!.display).toMatchObject({ kind: 'moved', taskId, requested: true });
    // A second press: it already runs in the background.
    await expect(call('backgroundTask', { sessionId: session.id, taskId })).rejects.toMatchObject({ code: 'conflict' });
    release();
    await until(() => rows()[0]!.taskSnapshot?.status === 'succeeded', 'the task to end and be kept');
  });

  it('refuses a task started in the background, and leaves a run the pool cannot take in the foreground', async () => {
    const { dataDir, services, call, session, rows } = start({ enabled: false });
    const first = untilFile(dataDir, 'go-2');
    const answer = call<ShellResult>('runShell', { sessionId: session.id, command: first.command });
    await until(() => rows().length === 1 && rows()[0]!.taskId !== null, 'the row');
    const taskId = rows()[0]!.taskId!;
    await until(() => services.pool.row(session.id, taskId).status === 'running', 'the command to run');
    await expect(call('backgroundTask', { sessionId: session.id, taskId })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('background tasks are turned off'),
    });
    expect(services.pool.row(session.id, taskId)).toMatchObject({ status: 'running', adopted: false });
    first.release();
    expect((await answer).task.status).toBe('succeeded');
  });

  it("moves the model's foreground call at once; the model is told as at 30 s, the person sees no fence", async () => {
    const model = await startOpenAiCompatibleServer();
    cleanups.push(() => model.close());
    const { dataDir, services, call, session, rows } = start();
    services.bus.subscribe((name, payload) => {
      if (name !== 'permissionRequested') return;
      const { request } = payload as { request: { id: string; sessionId: string } };
      void services.handle('answerPermission', {
        sessionId: request.sessionId,
        requestId: request.id,
        answer: 'allow',
      });
    });
    await call('updateSettings', {
      provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake', apiKey: 'k', streaming: true },
    });
    const { command, release } = untilFile(dataDir, 'go-3');
    model.enqueue({ toolCalls: [{ name: 'run_command', args: { command } }] }, { text: 'It runs on.' });
    await call('postMessage', { sessionId: session.id, text: 'run it' });
    await until(() => rows()[0]?.taskId != null, 'the call to start its task', 10_000);
    const taskId = rows()[0]!.taskId!;
    await until(() => services.pool.row(session.id, taskId).status === 'running', 'the command to run');
    await call('backgroundTask', { sessionId: session.id, taskId });
    await until(() => model.requests.length === 2, 'the model to hear back', 10_000);
    const told = model.requests[1]!.transcript;
    expect(told).toMatch(/The person moved this command to the background after \d+ s\. It was NOT cancelled/);
    expect(told).toContain(`read_task_output task_id="${taskId}"`);
    const row: Message = rows()[0]!;
    expect(row.toolResult).toMatch(/<untrusted-output nonce=/);
    expect(row.display).toMatchObject({ kind: 'moved', requested: true, taskId });
    release();
    await until(() => rows()[0]!.taskSnapshot?.status === 'succeeded', 'the task to end and be kept');
  });
});
