import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import {
  countWords,
  liveWork,
  quitButton,
  quitQuestion,
  schedulesNote,
  trayNotice,
} from '../../electron/core/live-work.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { tempDir, until } from '../helpers.js';
import { setupAgent } from '../agent/agent-harness.js';

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
    expect(work).toEqual({
      total: 0,
      counts: { task: 0, monitor: 0, agent: 0, reply: 0, schedule: 0 },
      waiting: 0,
      items: [],
    });
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
    expect(work.counts).toEqual({ task: 2, monitor: 1, agent: 0, reply: 0, schedule: 1 });
    expect(work.total).toBe(4);
    expect(work.waiting).toBe(1);
    expect(work.items).toEqual([
      'sleep 30 (session “Fix login”)',
      'npm run dev (waiting, session “Fix login”)',
      'Monitor: tail -f /dev/null (session “Docs”)',
      expect.stringMatching(/^.+: check the deploy \(session “Fix login”\)$/),
    ]);
    // Quitting stops the tasks; the schedule is kept (it only does not fire while Drover is closed).
    expect(quitQuestion(work)).toBe('2 tasks and 1 monitor are running or waiting: stop them and quit?');
    expect(quitButton(work)).toBe('Stop them and quit');
    expect(schedulesNote(work)).toBe('The schedule is kept, but does not run while Drover is closed.');
    expect(trayNotice(work, 'tray').body).toBe(
      'Drover is still running in the tray, with 2 tasks, 1 monitor and 1 schedule. To quit, choose Quit Drover there.',
    );

    // Stopped, the tasks are no longer live; the schedule still is.
    await call('stopTask', { sessionId: fix, taskId: first.id });
    await call('stopTask', { sessionId: fix, taskId: queued.id });
    await call('stopTask', { sessionId: other, taskId: monitor.id });
    await until(() => liveWork(running).total === 1, 'the tasks to stop');
    expect(liveWork(running).counts).toEqual({ task: 0, monitor: 0, agent: 0, reply: 0, schedule: 1 });
    const schedulesOnly = liveWork(running);
    expect(quitQuestion(schedulesOnly)).toBe('1 schedule is set to run: quit anyway?');
    expect(quitButton(schedulesOnly)).toBe('Quit');
  });

  it('reads the live tasks from memory when the pool offers them', () => {
    const row = (id: string, sessionId: string, status: TaskRow['status'], kind: TaskRow['kind'] = 'command') =>
      ({ id, sessionId, status, kind, command: `run ${id}` }) as TaskRow;
    const work = liveWork({
      sessions: { list: () => [{ id: 's1', title: 'One' }] },
      pool: {
        liveRows: () => [
          row('bg_1', 's1', 'running'),
          row('bg_2', 's1', 'queued', 'agent'),
          row('bg_3', 's1', 'succeeded'),
        ],
      },
      agent: { isBusy: () => false },
      scheduler: null,
    });
    expect(work.items).toEqual(['run bg_1 (session “One”)', 'Agent: run bg_2 (waiting, session “One”)']);
    expect(quitQuestion(work)).toBe('1 task and 1 agent are running or waiting: stop them and quit?');
  });

  it('says the counts in words', () => {
    const counts = { task: 1, monitor: 0, agent: 2, reply: 0, schedule: 0 };
    expect(countWords(counts)).toBe('1 task and 2 agents');
    const none = { task: 0, monitor: 0, agent: 0, reply: 0, schedule: 0 };
    const three = { total: 3, counts: { ...none, task: 3 }, waiting: 0, items: ['a', 'b', 'c'] };
    expect(quitQuestion(three)).toBe('3 tasks are running: stop them and quit?');
    const replying = { total: 2, counts: { ...none, task: 1, reply: 1 }, waiting: 0, items: ['a', 'b'] };
    expect(quitQuestion(replying)).toBe('1 task is running and 1 reply is in progress: stop them and quit?');
    expect(trayNotice(replying, 'menu bar').body).toBe(
      'Drover is still running in the menu bar, with 1 task and 1 reply in progress. To quit, choose Quit Drover there.',
    );
    const two = { total: 2, counts: { ...none, schedule: 2 }, waiting: 0, items: ['a', 'b'] };
    expect(quitQuestion(two)).toBe('2 schedules are set to run: quit anyway?');
    expect(schedulesNote(two)).toBe('Schedules are kept, but do not run while Drover is closed.');
  });

  it('counts a reply the agent is writing (the turn would be cut off), until the turn ends', async () => {
    const { model, services, session, call } = await setupAgent();
    model.enqueue({ text: 'slow answer', delayMs: 10_000 });
    await call('postMessage', { sessionId: session.id, text: 'explain the build' });
    await model.waitForRequests(1, 10_000);
    const work = liveWork(services);
    expect(work.counts).toEqual({ task: 0, monitor: 0, agent: 0, reply: 1, schedule: 0 });
    expect(work.items).toEqual([expect.stringMatching(/^Reply in progress \(session “.*”\)$/)]);
    expect(quitQuestion(work)).toBe('1 reply is in progress: stop it and quit?');
    await call('cancelTurn', { sessionId: session.id });
    await until(() => !services.agent.isBusy(session.id), 'the turn to end');
    expect(liveWork(services).total).toBe(0);
  });
});
