import { describe, expect, it, vi } from 'vitest';
import { contract } from '../../shared/contract.js';
import { EVENT_CHANNEL_PREFIX, REQUEST_CHANNEL_PREFIX } from '../../shared/ipc/bridge.js';
import { invalidInput, type Result } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { until } from '../helpers.js';
import { electronModule, FakeBrowserWindow, updaterModule } from './fake-electron/index.js';
import { currentFake, startDesktop } from './desktop-harness.js';

vi.mock('electron', () => electronModule(currentFake));
vi.mock('electron-updater', () => updaterModule(currentFake));

const CHANNELS = Object.keys(contract.requests).map((name) => REQUEST_CHANNEL_PREFIX + name);
const refused = { ok: false, error: { code: 'unauthorized', message: "IPC is accepted only from Drover's own page" } };

describe('IPC under the fake Electron', () => {
  it("answers only the app's own top frame: a subframe, a foreign page and a vanished frame are refused", async () => {
    const { window, fake, ok } = await startDesktop();
    const channel = REQUEST_CHANNEL_PREFIX + 'appInfo';
    const contents = window.webContents;
    // The control: the app's own top frame is answered by the real services.
    expect(await ok('appInfo')).toMatchObject({ host: 'electron', dataDir: fake.app.getPath('userData') });
    // An iframe of the app's own origin is still not the top frame.
    expect(await fake.ipcMain.invoke(contents, contents.addSubframe('drover://app/index.html'), channel, {})).toEqual(
      refused,
    );
    expect(await fake.ipcMain.invoke(contents, contents.addSubframe('https://evil.example/'), channel, {})).toEqual(
      refused,
    );
    expect(await fake.ipcMain.invoke(contents, null, channel, {})).toEqual(refused);
    // Another window showing a foreign page, through its top frame.
    const foreign = new FakeBrowserWindow({ show: true });
    await foreign.loadURL('https://evil.example/drover');
    expect(await fake.ipcMain.invoke(foreign.webContents, foreign.webContents.mainFrame, channel, {})).toEqual(refused);
    // A look-alike origin.
    await foreign.loadURL('drover://app.evil/index.html');
    expect(await fake.ipcMain.invoke(foreign.webContents, foreign.webContents.mainFrame, channel, {})).toEqual(refused);
    foreign.destroy();
  });

  it('serves exactly the names in the contract, each validated there and answered by the real services', async () => {
    const { window, fake, call, ok } = await startDesktop();
    expect(fake.ipcMain.channels().sort()).toEqual([...CHANNELS].sort());
    await expect(
      fake.ipcMain.invoke(window.webContents, window.webContents.mainFrame, `${REQUEST_CHANNEL_PREFIX}evalCode`, {}),
    ).rejects.toThrow(/No handler registered/);
    await expect(
      fake.ipcMain.invoke(window.webContents, window.webContents.mainFrame, 'drover:event:openTask', {}),
    ).rejects.toThrow(/No handler registered/);
    // Every request reaches the contract's router, which checks the input before any handler runs.
    for (const name of Object.keys(contract.requests)) {
      const result = await call(name, 'not an object');
      expect({ name, code: result.ok ? 'ok' : result.error.code }).toEqual({ name, code: 'invalid_input' });
    }
    const bad = { title: 42 };
    const expected = invalidInput('input', contract.requests.createSession.input.safeParse(bad).error!).toJSON();
    expect(await call('createSession', bad)).toEqual({ ok: false, error: expected });
    const made = await ok<{ id: string; title: string }>('createSession', { title: 'Through IPC' });
    expect(made.title).toBe('Through IPC');
    expect(await ok('getSession', { id: made.id })).toMatchObject({ id: made.id, title: 'Through IPC' });
    expect((await ok<{ id: string }[]>('listSessions')).map((session) => session.id)).toContain(made.id);
  });

  it('sends the real services’ events to the app window, on their event channels', async () => {
    const { window, ok, session } = await startDesktop();
    const sessionId = await session();
    const task = await ok<TaskRow>('startTask', { sessionId, command: 'echo from-the-task' });
    await until(
      () =>
        window.webContents.sent.some(
          (sent) =>
            sent.channel === `${EVENT_CHANNEL_PREFIX}taskUpdated` &&
            (sent.args[0] as { task: TaskRow }).task.id === task.id &&
            (sent.args[0] as { task: TaskRow }).task.status === 'succeeded',
        ),
      'the task to end, as the window hears it',
    );
    await ok('putTodos', { sessionId, items: [{ content: 'Ship it', status: 'pending', activeForm: 'Shipping it' }] });
    await ok('clearFinishedTasks', { sessionId });
    await ok('deleteSession', { id: sessionId });
    const heard = new Set(window.webContents.sent.map((sent) => sent.channel));
    for (const name of [
      'sessionUpserted',
      'taskUpdated',
      'taskOutput',
      'todosChanged',
      'tasksCleared',
      'sessionDeleted',
    ])
      expect(heard).toContain(EVENT_CHANNEL_PREFIX + name);
    // Each payload is the contract's shape.
    for (const sent of window.webContents.sent) {
      const name = sent.channel.slice(EVENT_CHANNEL_PREFIX.length);
      expect(contract.events[name as keyof typeof contract.events].payload.safeParse(sent.args[0]).success).toBe(true);
    }
  });

  it('forwards every event the contract declares to app windows only (the adapter, on a scripted endpoint)', async () => {
    await startDesktop();
    const { serveContractOverIpc } = await import('../../electron/app/ipc-adapter.js');
    const listeners = new Set<(name: string, payload: unknown) => void>();
    const endpoint: ServerEndpoint = {
      handle: async (): Promise<Result<unknown>> => ({ ok: true, value: null }),
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    // Its own IPC names would clash with the app's; the app's are removed first.
    const fake = currentFake();
    for (const channel of CHANNELS) fake.ipcMain.removeHandler(channel);
    const app = new FakeBrowserWindow({ show: true });
    await app.loadURL('drover://app/index.html');
    const foreign = new FakeBrowserWindow({ show: true });
    await foreign.loadURL('https://evil.example/');
    const stop = serveContractOverIpc(contract, endpoint);
    for (const name of Object.keys(contract.events)) for (const listener of listeners) listener(name, { probe: name });
    expect(app.webContents.sent).toEqual(
      Object.keys(contract.events).map((name) => ({ channel: EVENT_CHANNEL_PREFIX + name, args: [{ probe: name }] })),
    );
    expect(foreign.webContents.sent).toEqual([]);
    stop();
    expect(listeners.size).toBe(0);
    expect(fake.ipcMain.channels()).toEqual([]);
    app.destroy();
    foreign.destroy();
  });
});
