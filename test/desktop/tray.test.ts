import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import type { TaskRow } from '../../shared/schemas/task.js';
import { until } from '../helpers.js';
import { electronModule, updaterModule } from './fake-electron/index.js';
import { currentFake, eventsSent, startDesktop, trayHeadline } from './desktop-harness.js';

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

describe('the tray, notifications and quitting under the fake Electron', () => {
  it("follows task events: the running count, one item per task that opens it, and 'No tasks running' after", async () => {
    const { tray, window, ok, session, startTask } = await startDesktop();
    expect(trayHeadline(tray)).toBe('No tasks running');
    expect(tray.tooltip).toBe('Drover: no tasks running');
    const sessionId = await session();
    const task = await startTask(sessionId, 'sleep 30');
    await until(() => trayHeadline(tray) === '1 running', 'the tray to count the task');
    expect(tray.tooltip).toBe('Drover: 1 shell running');
    const label = `Running: sleep 30 (${task.id})`;
    expect(tray.menu!.labels()).toEqual(['1 running', label, 'Show Drover', 'Quit Drover']);

    window.hide();
    tray.menu!.item(label).click();
    expect(window.isVisible() && window.isFocused()).toBe(true);
    // Sent at the end of the turn, with the turn's other events.
    await until(
      () =>
        eventsSent(window.webContents).some(
          (event) => event.name === 'openTask' && isDeepStrictEqual(event.payload, { sessionId, taskId: task.id }),
        ),
      'the window to be told to open the task',
    );

    await ok('stopTask', { sessionId, taskId: task.id });
    await until(() => trayHeadline(tray) === 'No tasks running', 'the tray to drop the stopped task');
    expect(tray.menu!.labels()).toEqual(['No tasks running', 'Show Drover', 'Quit Drover']);
    expect(tray.menu!.items[0]!.enabled).toBe(false);
  });

  it('notifies a task ending while the window is unfocused, and the click opens that task', async () => {
    const { fake, window, ok, session } = await startDesktop();
    const sessionId = await session();
    // The control: with the window focused, an ending is not notified.
    const seen = await ok<TaskRow>('startTask', { sessionId, command: 'echo focused' });
    await until(
      async () => (await ok<{ task: TaskRow }>('getTask', { sessionId, taskId: seen.id })).task.status === 'succeeded',
      'the first task to end',
    );
    expect(fake.notifications).toEqual([]);

    window.blur();
    const away = await ok<TaskRow>('startTask', { sessionId, command: 'sh -c "exit 3"' });
    await until(() => fake.notifications.length === 1, 'the notification');
    const shown = fake.notifications[0]!;
    expect(shown.title).toBe('Task failed: sh -c "exit 3"');
    expect(shown.body).toContain(`${away.id} in “Desk”`);
    expect(shown.body).toContain('exit code 3');
    window.hide();
    shown.click();
    expect(window.isVisible() && window.isFocused()).toBe(true);
    // Sent at the end of the turn, with the turn's other events.
    await until(
      () =>
        eventsSent(window.webContents).some(
          (event) => event.name === 'openTask' && isDeepStrictEqual(event.payload, { sessionId, taskId: away.id }),
        ),
      'the window to be told to open the task',
    );
  });

  it('quit, confirmed, drains the pool: the task’s process is gone and the app exits', async () => {
    const { fake, session, startTask, exited } = await startDesktop();
    const sessionId = await session();
    const task = await startTask(sessionId, 'sleep 30');
    expect(task.pid).not.toBeNull();
    const pid = task.pid!;
    expect(alive(pid)).toBe(true);

    // What electron-updater listens to, to install a downloaded update at quit.
    const quitCodes: number[] = [];
    fake.app.on('quit', (_event, code: number) => quitCodes.push(code));
    fake.app.quit();
    await until(() => fake.dialog.messageBoxes.length === 1, 'the question before quitting');
    const box = fake.dialog.messageBoxes[0]!;
    expect(box.options.message).toBe('1 task is running: stop it and quit?');
    expect(box.options.detail).toBe('sleep 30 (session “Desk”)');
    expect(box.options.buttons).toEqual(['Stop it and quit', 'Cancel']);
    box.press('Stop it and quit');
    expect(await exited()).toBe(0);
    expect(fake.app.endedBy).toBe('quit');
    expect(quitCodes).toEqual([0]);
    expect(alive(pid)).toBe(false);
    expect(fake.trays[0]!.isDestroyed()).toBe(true);
    expect(fake.ipcMain.channels()).toEqual([]);
  });

  it('looks for updates only when the setting allows, once the window is up, and stops at quit', async () => {
    const off = await startDesktop();
    expect(off.fake.updater.autoDownload).toBe(false);
    expect(off.fake.updater.checks).toBe(0);
    off.fake.app.quit();
    expect(await off.exited()).toBe(0);

    const on = await startDesktop({
      prepareUserData: (userData) =>
        writeFileSync(join(userData, 'settings.json'), JSON.stringify({ desktop: { autoUpdate: true } })),
    });
    await until(() => on.fake.updater.checks === 1, 'the first look for an update');
    expect(on.fake.updater.autoInstallOnAppQuit).toBe(false);
  });
});
