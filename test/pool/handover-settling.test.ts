import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../../electron/core/services.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DroverError } from '../../shared/ipc/errors.js';
import { ForegroundHandovers } from '../../electron/pool/adoption.js';
import { TaskLog } from '../../electron/pool/task-log.js';
import { makePool, type Harness } from './pool-harness.js';

const open: Harness[] = [];
/** Held closes, let go after each test even when it failed, so drain never waits on them. */
const held: (() => void)[] = [];
afterEach(async () => {
  for (const letGo of held.splice(0)) letGo();
  vi.restoreAllMocks();
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

/**
 * Holds every log's close until the test lets go: a task whose command exited then stays
 * settling (still live, its row still running) for as long as the test needs.
 */
function holdLogClose(): { closing: Promise<void>; letGo: () => void } {
  let closing!: () => void;
  const started = new Promise<void>((resolve) => (closing = resolve));
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  const close = TaskLog.prototype.close;
  vi.spyOn(TaskLog.prototype, 'close').mockImplementation(async function (this: TaskLog) {
    closing();
    await gate;
    return close.call(this);
  });
  held.push(letGo);
  return { closing: started, letGo };
}

describe('handing over a foreground run that is settling', () => {
  it('"Background" is a conflict and nothing is adopted; the run ends as the foreground run it was', async () => {
    const h = makePool();
    open.push(h);
    const { pool, sessionId } = h;
    const log = holdLogClose();
    const handovers = new ForegroundHandovers();
    const task = await pool.startForeground({ sessionId, command: 'echo done', cwd: tmpdir(), timeoutSeconds: 5 });
    const handover = handovers.wait(task.id);
    await log.closing;
    // The command has exited and its end is being recorded: its row still says running.
    expect(pool.row(sessionId, task.id)).toMatchObject({ running: true, adopted: false });

    let refusal: unknown;
    try {
      handovers.moveNow(pool, sessionId, task.id);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DroverError);
    expect(refusal).toMatchObject({ code: 'conflict', message: expect.stringContaining('has just ended') });
    // The timed handover takes nothing over either: no adoption, no timeout armed again.
    expect(pool.adopt(task.id)).toBeNull();
    expect(pool.row(sessionId, task.id)).toMatchObject({ adopted: false, timeoutSeconds: 5 });

    log.letGo();
    const settled = await pool.waitFor(task.id, 5_000);
    handover.done();
    expect(settled).toMatchObject({ status: 'succeeded', adopted: false, foreground: true, timeoutSeconds: 5 });
  });

  it('the timed handover finding the run already ending answers with its result, never "moved"', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'drover-settling-'));
    const services = createServices({
      dataDir,
      version: 't',
      host: 'headless',
      workingDir: dataDir,
      env: {},
      warn: () => {},
    });
    const session = services.sessions.create();
    const log = holdLogClose();
    // The wait runs out just as the command exits, while its end is still being recorded: the
    // first wait answers "timed out" once the log's close has begun; later waits are real.
    const waitFor = services.pool.waitFor.bind(services.pool);
    vi.spyOn(services.pool, 'waitFor')
      .mockImplementationOnce(async () => {
        await log.closing;
        return null;
      })
      .mockImplementation(waitFor);
    let adoptCalled!: () => void;
    const adopting = new Promise<void>((resolve) => (adoptCalled = resolve));
    const adopt = services.pool.adopt.bind(services.pool);
    vi.spyOn(services.pool, 'adopt').mockImplementation((id: string) => {
      const refused = adopt(id);
      adoptCalled();
      return refused;
    });
    try {
      const answer = services.handle('runShell', { sessionId: session.id, command: 'echo done' });
      await log.closing;
      await adopting;
      log.letGo();
      const result = (await answer) as {
        ok: true;
        value: { task: { adopted: boolean; status: string }; notice: unknown };
      };
      expect(result.ok).toBe(true);
      expect(result.value.notice).toBeNull();
      expect(result.value.task).toMatchObject({ adopted: false, status: 'succeeded' });
      const row = services.sessions.messages(session.id).find((message) => message.role === 'tool');
      expect(row?.display?.kind).not.toBe('moved');
    } finally {
      log.letGo();
      await services.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
