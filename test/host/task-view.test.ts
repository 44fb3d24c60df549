import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import { tempDir, until } from '../helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const dataDir = tempDir();
  const services: Services = createServices({
    dataDir,
    version: 't',
    host: 'headless',
    workingDir: dataDir,
    env: {},
    warn: () => {},
  });
  cleanups.push(() => services.shutdown());
  const session = services.sessions.create();
  const call = async <T>(name: string, input: object): Promise<T> => {
    const result = await services.handle(name, { sessionId: session.id, ...input });
    if (!result.ok) throw new Error(result.error.message);
    return result.value as T;
  };
  return { services, session, call };
}

describe('what a task view needs', () => {
  it('reads raw log bytes from an offset, escapes intact', async () => {
    const { services, session, call } = await setup();
    const task = await call<{ id: string }>('startTask', {
      command: "printf '\\033[31mred\\033[0m\\n'; sleep 0.3; printf 'more\\n'",
    });
    await services.pool.waitFor(task.id, 5_000);
    const all = await call<{ data: string; fromByte: number; toByte: number; truncated: boolean }>('readTaskLog', {
      taskId: task.id,
    });
    expect(all.data).toBe('\x1b[31mred\x1b[0m\nmore\n');
    expect(all).toMatchObject({ fromByte: 0, truncated: false });
    const tail = await call<{ data: string; fromByte: number }>('readTaskLog', {
      taskId: task.id,
      fromByte: all.toByte - 5,
    });
    expect(tail).toMatchObject({ data: 'more\n', fromByte: all.toByte - 5 });
    void session;
  });

  it('types into a running task that waits for input', async () => {
    const { services, call } = await setup();
    const task = await call<{ id: string }>('startTask', { command: 'read -r answer; echo "got $answer"' });
    await until(() => services.pool.row(services.sessions.list()[0]!.id, task.id).running, 'the task to run');
    expect(await call('writeTask', { taskId: task.id, data: 'yes\r' })).toEqual({ written: 4 });
    const done = await services.pool.waitFor(task.id, 5_000);
    expect(done?.status).toBe('succeeded');
    expect((await call<{ output: { text: string } }>('getTask', { taskId: task.id })).output.text).toContain('got yes');
    await expect(call('writeTask', { taskId: task.id, data: 'late' })).rejects.toThrow(/not running/);
  });

  it('searches the whole log, escapes and redraws ignored', async () => {
    const { services, call } = await setup();
    const task = await call<{ id: string }>('startTask', {
      command:
        "for i in $(seq 1 3000); do echo \"line $i\"; done; printf '\\033[1mNEEDLE\\033[0m here\\n'; printf 'x 10%%\\rx NEEDLE 100%%\\n'",
    });
    await services.pool.waitFor(task.id, 10_000);
    const found = await call<{ matches: { line: number; text: string }[]; linesSearched: number; truncated: boolean }>(
      'searchTaskLog',
      { taskId: task.id, query: 'needle' },
    );
    expect(found.matches).toEqual([
      { line: 3001, text: 'NEEDLE here' },
      { line: 3002, text: 'x NEEDLE 100%' },
    ]);
    expect(found).toMatchObject({ linesSearched: 3002, truncated: false });
    const capped = await call<{ matches: unknown[]; truncated: boolean }>('searchTaskLog', {
      taskId: task.id,
      query: 'line',
      maxMatches: 5,
    });
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.matches).toHaveLength(5);
  });
});
