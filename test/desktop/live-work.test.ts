import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import { countWords, liveWork, quitQuestion, trayNotice } from '../../electron/core/live-work.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { tempDir, until } from '../helpers.js';

/** live-work on the real services (plain Node, no Electron): what closing the window must not end. */
let services: Services | null = null;
afterEach(async () => {
  await services?.shutdown();
  services = null;
});

function start(): Services {
  const dataDir = tempDir();
  services = createServices({
    dataDir,
    version: '1',
    host: 'electron',
    workingDir: dataDir,
    policy: { maxConcurrent: 1 },
    scheduler: { ticking: false },
  });
  return services;
}

async function call<T>(name: string, input: unknown): Promise<T> {
  const result = await services!.handle(name, input);
  if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
  return result.value as T;
}

describe('live work', () => {
  it('is nothing in a fresh Drover', () => {
    const work = liveWork(start());
    expect(work).toEqual({ total: 0, counts: { task: 0, monitor: 0, agent: 0, schedule: 0 }, items: [] });
  });

  it('counts running and queued tasks and monitors, and schedules that will fire, one line each', async () => {
    const running = start();
    const fix = running.sessions.create('Fix login').id;
    const other = running.sessions.create('Docs').id;
    // A settled task is not live.
    const ended = await call<TaskRow>('startTask', { sessionId: other, command: 'true' });
    await until(() => running.pool.row(other, ended.id).status === 'succeeded', 'the short task to end');
    const first = await call<TaskRow>('startTask', { sessionId: fix, command: 'sleep 30' });
    // Behind the cap of one per session, it waits.
    const queued = await call<TaskRow>('startTask', { sessionId: fix, command: 'npm   run\n dev' });
    const monitor = await call<TaskRow>('startTask', {
      sessionId: other,
      command: 'tail -f /dev/null',
      kind: 'monitor',
    });
    await until(() => running.pool.row(fix, first.id).status === 'running', 'the first task to run');
    expect(running.pool.row(fix, queued.id).status).toBe('queued');

    const scheduler = running.scheduler!;
    scheduler.create(fix, { cron: '*/5 * * * *', prompt: 'check the deploy', recurring: true, durable: false });
    const paused = scheduler.create(other, {
      cron: '0 9 * * *',
      prompt: 'morning report',
      recurring: true,
      durable: false,
    });
    scheduler.pause(paused.id, true);
    // Made durable by the model, a job waits to be turned on: it will not fire.
    scheduler.create(fix, { cron: '0 3 * * *', prompt: 'nightly backup', recurring: true, durable: true });

    const work = liveWork(running);
    expect(work.counts).toEqual({ task: 2, monitor: 1, agent: 0, schedule: 1 });
    expect(work.total).toBe(4);
    expect(work.items).toEqual([
      'sleep 30 (session “Fix login”)',
      'npm run dev (queued, session “Fix login”)',
      'Monitor: tail -f /dev/null (session “Docs”)',
      expect.stringMatching(/^.+: check the deploy \(session “Fix login”\)$/),
    ]);
    expect(quitQuestion(work)).toBe(
      '2 tasks and 1 monitor are running and 1 schedule is set to run: stop them and quit?',
    );
    expect(trayNotice(work, 'tray').body).toBe(
      'Drover keeps running 2 tasks, 1 monitor and 1 schedule in the tray. Choose Quit Drover there to stop them.',
    );

    // Stopped, the tasks are no longer live; the schedule still is.
    await call('stopTask', { sessionId: fix, taskId: first.id });
    await call('stopTask', { sessionId: fix, taskId: queued.id });
    await call('stopTask', { sessionId: other, taskId: monitor.id });
    await until(() => liveWork(running).total === 1, 'the tasks to stop');
    expect(liveWork(running).counts).toEqual({ task: 0, monitor: 0, agent: 0, schedule: 1 });
  });

  it('says the counts in words', () => {
    const counts = { task: 1, monitor: 0, agent: 2, schedule: 0 };
    expect(countWords(counts)).toBe('1 task and 2 agents');
    const one = { total: 1, counts: { task: 0, monitor: 0, agent: 0, schedule: 1 }, items: ['x'] };
    expect(quitQuestion(one)).toBe('1 schedule is set to run: stop it and quit?');
    const three = { total: 3, counts: { task: 3, monitor: 0, agent: 0, schedule: 0 }, items: ['a', 'b', 'c'] };
    expect(quitQuestion(three)).toBe('3 tasks are running: stop them and quit?');
  });
});
