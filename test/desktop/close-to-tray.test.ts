import { describe, expect, it, vi } from 'vitest';
import type { TaskRow } from '../../shared/schemas/task.js';
import { until } from '../helpers.js';
import { startOpenAiCompatibleServer } from '../../e2e/fake-model/index.js';
import { electronModule, updaterModule } from './fake-electron/index.js';
import { currentFake, startDesktop } from './desktop-harness.js';
import { STOP_SIGNALS } from '../../electron/core/stopping.js';

vi.mock('electron', () => electronModule(currentFake));
vi.mock('electron-updater', () => updaterModule(currentFake));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs `body` while the close-time rules read `platform` (the services were made for this machine). */
async function onPlatform(platform: NodeJS.Platform, body: () => unknown): Promise<void> {
  const real = Object.getOwnPropertyDescriptor(process, 'platform')!;
  Object.defineProperty(process, 'platform', { ...real, value: platform });
  try {
    await body();
  } finally {
    Object.defineProperty(process, 'platform', real);
  }
}

/** Lets the app run what a close or quit scheduled (Electron's quit runs from the event loop). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('closing the window and quitting (close-to-tray)', () => {
  it('closing with live work keeps Drover in the tray: the window hides, the tray says so once, work goes on', async () => {
    const { fake, window, tray, ok, session, startTask } = await startDesktop();
    const sessionId = await session();
    const task = await startTask(sessionId, 'sleep 30');

    window.close();
    await settle();
    expect(window.isDestroyed()).toBe(false);
    expect(window.isVisible()).toBe(false);
    expect(fake.app.quitCalls).toBe(0);
    expect(fake.app.exitCode).toBeNull();
    expect(fake.dialog.messageBoxes).toEqual([]);
    expect(fake.notifications.map((shown) => [shown.title, shown.body])).toEqual([
      [
        'Drover is still running',
        'Drover is still running in the tray, with 1 task. To quit, choose Quit Drover there.',
      ],
    ]);
    // The work and the services go on.
    expect(alive(task.pid!)).toBe(true);
    expect((await ok<{ task: TaskRow }>('getTask', { sessionId, taskId: task.id })).task.status).toBe('running');

    // Show Drover brings the same window back; closing again says nothing new (once per run).
    tray.menu!.item('Show Drover').click();
    expect(window.isVisible() && window.isFocused()).toBe(true);
    window.close();
    await settle();
    expect(window.isVisible()).toBe(false);
    expect(fake.notifications).toHaveLength(1);
    // Clicking the notice shows the window too.
    fake.notifications[0]!.click();
    expect(window.isVisible()).toBe(true);
  });

  it('a reply the agent is writing is live work: closing keeps Drover in the tray, and Quit asks', async () => {
    const model = await startOpenAiCompatibleServer();
    try {
      const { fake, window, ok, session, exited } = await startDesktop();
      await ok('updateSettings', {
        provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake-model', apiKey: 'sk-test-key' },
      });
      const sessionId = await session();
      model.enqueue({ text: 'a slow answer', delayMs: 10_000 });
      await ok('postMessage', { sessionId, text: 'explain the build' });
      await model.waitForRequests(1, 10_000);

      window.close();
      await settle();
      expect(window.isVisible()).toBe(false);
      expect(fake.app.exitCode).toBeNull();
      expect(fake.notifications.map((shown) => shown.body)).toEqual([
        'Drover is still running in the tray, with 1 reply in progress. To quit, choose Quit Drover there.',
      ]);
      fake.app.quit();
      await until(() => fake.dialog.messageBoxes.length === 1, 'the question');
      expect(fake.dialog.messageBoxes[0]!.options.message).toBe('1 reply is in progress: stop it and quit?');
      fake.dialog.messageBoxes[0]!.press('Stop it and quit');
      expect(await exited()).toBe(0);
    } finally {
      await model.close();
    }
  });

  it('closing with nothing live quits without asking', async () => {
    const { fake, window, exited } = await startDesktop();
    window.close();
    expect(await exited()).toBe(0);
    expect(window.isDestroyed()).toBe(true);
    expect(fake.app.endedBy).toBe('quit');
    expect(fake.dialog.messageBoxes).toEqual([]);
    expect(fake.notifications).toEqual([]);
  });

  it('Quit from the tray with live work asks; Cancel keeps everything running, and a confirmed Quit stops it', async () => {
    const { fake, window, tray, ok, session, startTask, exited } = await startDesktop();
    const sessionId = await session();
    const first = await startTask(sessionId, 'sleep 30');
    await ok('startTask', { sessionId, command: 'tail -f /dev/null', kind: 'monitor' });
    await until(() => tray.menu!.items[0]!.label === '2 running', 'both in the tray');

    tray.menu!.item('Quit Drover').click();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the question');
    const box = fake.dialog.messageBoxes[0]!;
    expect(box.options.message).toBe('1 task and 1 monitor are running: stop them and quit?');
    expect(box.options.detail).toBe('sleep 30 (session “Desk”)\nMonitor: tail -f /dev/null (session “Desk”)');
    expect(box.options.buttons).toEqual(['Stop them and quit', 'Cancel']);
    expect(box.options.cancelId).toBe(1);
    // Asked over the visible window.
    expect(box.parent).toBe(window);
    box.press('Cancel');
    await settle();
    expect(fake.app.exitCode).toBeNull();
    expect(fake.app.exitCalls).toEqual([]);
    expect(alive(first.pid!)).toBe(true);
    expect(window.isVisible()).toBe(true);
    expect((await ok<{ task: TaskRow }>('getTask', { sessionId, taskId: first.id })).task.status).toBe('running');

    // Cmd+Q (the app menu's Quit) asks the same; confirmed, the tasks stop and the app exits.
    fake.app.quit();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the question again');
    fake.dialog.messageBoxes[0]!.press('Stop them and quit');
    expect(await exited()).toBe(0);
    expect(alive(first.pid!)).toBe(false);
  });

  it("with whenClosed 'quit', closing with live work asks first and then quits", async () => {
    const { fake, window, ok, session, startTask, exited } = await startDesktop();
    await ok('updateSettings', { desktop: { whenClosed: 'quit' } });
    const sessionId = await session();
    const task = await startTask(sessionId, 'sleep 30');

    window.close();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the question');
    expect(fake.dialog.messageBoxes[0]!.options.message).toBe('1 task is running: stop it and quit?');
    // Until answered, the window stays.
    expect(window.isDestroyed()).toBe(false);
    expect(window.isVisible()).toBe(true);
    fake.dialog.messageBoxes[0]!.press('Stop it and quit');
    expect(await exited()).toBe(0);
    expect(alive(task.pid!)).toBe(false);
    expect(fake.notifications).toEqual([]);
  });

  it("with whenClosed 'quit', Cancel keeps the window open and the work running", async () => {
    const { fake, window, ok, session, startTask } = await startDesktop();
    await ok('updateSettings', { desktop: { whenClosed: 'quit' } });
    const sessionId = await session();
    const task = await startTask(sessionId, 'sleep 30');
    window.close();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the question');
    fake.dialog.messageBoxes[0]!.press('Cancel');
    await settle();
    expect(window.isDestroyed()).toBe(false);
    expect(window.isVisible()).toBe(true);
    expect(fake.app.exitCode).toBeNull();
    expect(alive(task.pid!)).toBe(true);
  });

  it('on macOS, closing with nothing live keeps the app in the dock, and activate opens a new window', async () => {
    const { fake, window } = await startDesktop();
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    // Only the close-time rules read the platform here; the services were made for this machine.
    Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
    try {
      window.close();
      await settle();
      expect(window.isDestroyed()).toBe(true);
      expect(fake.app.quitCalls).toBe(0);
      expect(fake.app.exitCode).toBeNull();
      fake.app.emitActivate(false);
      expect(fake.windows.all).toHaveLength(1);
      const reopened = fake.windows.all[0]!;
      expect(reopened).not.toBe(window);
      expect(reopened.webContents.getURL()).toBe('drover://app/index.html');
      await until(() => reopened.isVisible(), 'the new window to show');
      // The tray's Show Drover reaches the new window too.
      reopened.hide();
      fake.trays[0]!.menu!.item('Show Drover').click();
      expect(reopened.isVisible()).toBe(true);
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  });

  it('when the system shuts down, Drover drains and quits without asking (nobody is there to answer)', async () => {
    const { fake, session, startTask, exited } = await startDesktop();
    const task = await startTask(await session(), 'sleep 30');
    // Electron is asked to hold the shutdown until the drain is done.
    expect(fake.powerMonitor.emitShutdown()).toBe(true);
    expect(await exited()).toBe(0);
    expect(fake.dialog.messageBoxes).toEqual([]);
    expect(alive(task.pid!)).toBe(false);
  });

  it.each(STOP_SIGNALS)(
    'a stop signal, %s (its terminal closed, Ctrl+C there, kill), drains and quits without asking',
    async (signal) => {
      const listening = process.listenerCount(signal);
      const { fake, session, startTask, exited } = await startDesktop();
      const task = await startTask(await session(), 'sleep 30');
      expect(process.listenerCount(signal)).toBe(listening + 1);
      process.emit(signal, signal);
      expect(await exited()).toBe(0);
      expect(fake.dialog.messageBoxes).toEqual([]);
      expect(alive(task.pid!)).toBe(false);
    },
  );

  it('when Windows asks to end the session, Drover holds it, drains without asking and quits (no window is closed for it)', async () => {
    const { fake, window, session, startTask, exited } = await startDesktop();
    const task = await startTask(await session(), 'sleep 30');
    // Windows emits no before-quit and closes no window at a shutdown: the question is where the drain starts.
    expect(window.emitSessionEnd('query-session-end', ['logoff'])).toBe(true);
    expect(await exited()).toBe(0);
    expect(fake.dialog.messageBoxes).toEqual([]);
    expect(fake.notifications).toEqual([]);
    expect(alive(task.pid!)).toBe(false);
  });

  it('when Windows ends the session without asking, the drain starts there', async () => {
    const { fake, window, session, startTask, exited } = await startDesktop();
    const task = await startTask(await session(), 'sleep 30');
    window.emitSessionEnd('session-end', ['critical']);
    expect(await exited()).toBe(0);
    expect(fake.dialog.messageBoxes).toEqual([]);
    expect(alive(task.pid!)).toBe(false);
  });

  it('with nothing live, Windows ending the session is not held', async () => {
    const { window, exited } = await startDesktop();
    expect(window.emitSessionEnd('query-session-end')).toBe(false);
    expect(await exited()).toBe(0);
  });

  it('a second quit during the drain waits for it: the app ends only once the tasks are gone, and nothing shows the window', async () => {
    const { fake, window, tray, ok, session, startTask, exited } = await startDesktop();
    // A task that ignores SIGTERM holds the drain for the whole grace period, then SIGKILL ends it.
    await ok('updateSettings', { background: { stopGraceSeconds: 2 } });
    const task = await startTask(await session(), "trap '' TERM; sleep 30");
    const aliveWhen: Record<string, boolean> = {};
    window.on('closed', () => (aliveWhen.closed = alive(task.pid!)));
    fake.app.on('will-quit', () => (aliveWhen.willQuit = alive(task.pid!)));
    fake.app.on('quit', () => (aliveWhen.quit = alive(task.pid!)));

    fake.app.quit();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the question');
    fake.dialog.messageBoxes[0]!.press('Stop it and quit');
    await until(() => tray.isDestroyed(), 'the drain to start');
    expect(window.isVisible()).toBe(false);
    // Cmd+Q again, the dock's Quit, SIGTERM: all the same quit, held.
    fake.app.quit();
    fake.app.quit();
    // The dock icon and a second copy of the app would show a dead page: they do nothing now.
    fake.app.emitActivate(false);
    fake.app.emitSecondInstance();
    expect(window.isVisible()).toBe(false);
    expect(fake.windows.all).toEqual([window]);
    expect(fake.dialog.messageBoxes).toEqual([]);

    expect(await exited()).toBe(0);
    expect(fake.app.endedBy).toBe('quit');
    expect(aliveWhen).toEqual({ closed: false, willQuit: false, quit: false });
  });

  it('a shutdown that fails is logged and Drover still quits (no unhandled rejection)', async () => {
    const { exited } = await startDesktop();
    // The module graph main.ts loaded: its pool's drain fails (a stand-in for a store that cannot be closed).
    const { TaskPool } = await import('../../electron/pool/pool.js');
    vi.spyOn(TaskPool.prototype, 'drain').mockRejectedValueOnce(new Error('the disk went away'));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      currentFake().app.quit();
      expect(await exited()).toBe(0);
      expect(logged).toHaveBeenCalledWith('drover: the shutdown failed: the disk went away');
    } finally {
      logged.mockRestore();
    }
  });

  it('without system notifications, the first close says so in a box before the window hides', async () => {
    const { fake, window, tray, session, startTask } = await startDesktop();
    fake.setNotificationsSupported(false);
    await startTask(await session(), 'sleep 30');
    window.close();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the notice');
    const box = fake.dialog.messageBoxes[0]!;
    expect(box.parent).toBe(window);
    expect([box.options.message, box.options.detail]).toEqual([
      'Drover is still running',
      'Drover is still running in the tray, with 1 task. To quit, choose Quit Drover there.',
    ]);
    // Read over the window, then it hides.
    expect(window.isVisible()).toBe(true);
    box.press('OK');
    await until(() => !window.isVisible(), 'the window to hide');
    // Once per run.
    tray.menu!.item('Show Drover').click();
    window.close();
    expect(window.isVisible()).toBe(false);
    expect(fake.dialog.messageBoxes).toEqual([]);
    expect(fake.notifications).toEqual([]);
  });

  it('on Windows without system notifications, the tray icon says it in a balloon', async () => {
    const { fake, window, tray, session, startTask } = await startDesktop();
    fake.setNotificationsSupported(false);
    await startTask(await session(), 'sleep 30');
    await onPlatform('win32', () => window.close());
    expect(window.isVisible()).toBe(false);
    expect(tray.balloons).toEqual([
      {
        title: 'Drover is still running',
        content: 'Drover is still running in the tray, with 1 task. To quit, choose Quit Drover there.',
        iconType: 'info',
      },
    ]);
    expect(fake.dialog.messageBoxes).toEqual([]);
  });

  it('on macOS, the quit question with no window up brings Drover to the front first', async () => {
    const { fake, window, tray, session, startTask } = await startDesktop();
    await startTask(await session(), 'sleep 30');
    await onPlatform('darwin', async () => {
      window.close();
      expect(window.isVisible()).toBe(false);
      tray.menu!.item('Quit Drover').click();
      await until(() => fake.dialog.messageBoxes.length === 1, 'the question');
    });
    expect(fake.app.focusCalls).toEqual([{ steal: true }]);
    expect(fake.dialog.messageBoxes[0]!.parent).toBeNull();
    fake.dialog.messageBoxes[0]!.press('Cancel');
  });

  it('the question lists the first twelve items and counts the rest', async () => {
    const { fake, ok, session } = await startDesktop();
    const sessionId = await session();
    // Beyond the pool's cap they wait, queued: still live, still listed.
    for (let n = 1; n <= 13; n += 1) await ok('startTask', { sessionId, command: `sleep 30 # ${n}` });
    fake.app.quit();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the question');
    const box = fake.dialog.messageBoxes[0]!;
    expect(box.options.message).toBe('13 tasks are running or waiting: stop them and quit?');
    const lines = box.options.detail!.split('\n');
    expect(lines).toHaveLength(13);
    expect(lines[0]).toBe('sleep 30 # 1 (session “Desk”)');
    // Beyond the cap, they are said to wait.
    expect(lines.filter((line) => line.endsWith('(waiting, session “Desk”)')).length).toBeGreaterThan(0);
    expect(lines.at(-1)).toBe('and 1 more');
    box.press('Cancel');
  });
});
