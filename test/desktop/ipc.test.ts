import { describe, expect, it, vi } from 'vitest';
import { contract } from '../../shared/contract.js';
import { EVENTS_CHANNEL, REQUEST_CHANNEL_PREFIX } from '../../shared/ipc/bridge.js';
import { invalidInput, type Result } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { until } from '../helpers.js';
import { electronModule, FakeBrowserWindow, updaterModule } from './fake-electron/index.js';
import { currentFake, eventsSent, startDesktop } from './desktop-harness.js';

vi.mock('electron', () => electronModule(currentFake));
vi.mock('electron-updater', () => updaterModule(currentFake));

const CHANNELS = Object.keys(contract.requests).map((name) => REQUEST_CHANNEL_PREFIX + name);
const refused = { ok: false, error: { code: 'unauthorized', message: "IPC is accepted only from Drover's own page" } };

/**
 * The adapter on a scripted endpoint, beside a window showing the app: `emit` is the endpoint's
 * event feed, `serve()` starts the adapter (the app's own IPC names, which would clash, removed first).
 */
async function scriptedAdapter(handle: (name: string) => Promise<Result<unknown>>) {
  await startDesktop();
  const { serveContractOverIpc } = await import('../../electron/app/ipc-adapter.js');
  const listeners = new Set<(name: string, payload: unknown) => void>();
  const endpoint: ServerEndpoint = {
    handle,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const emit = Object.assign(
    (name: string, payload: unknown) => {
      for (const listener of listeners) listener(name, payload);
    },
    { listening: () => listeners.size },
  );
  const fake = currentFake();
  for (const channel of CHANNELS) fake.ipcMain.removeHandler(channel);
  const app = new FakeBrowserWindow({ show: true });
  await app.loadURL('drover://app/index.html');
  return { fake, app, emit, serve: () => serveContractOverIpc(contract, endpoint) };
}

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
      fake.ipcMain.invoke(window.webContents, window.webContents.mainFrame, EVENTS_CHANNEL, {}),
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

  it('sends the real services’ events to the app window, in batches on the events channel', async () => {
    const { window, ok, session } = await startDesktop();
    const sessionId = await session();
    const task = await ok<TaskRow>('startTask', { sessionId, command: 'echo from-the-task' });
    await until(
      () =>
        eventsSent(window.webContents).some(
          (event) =>
            event.name === 'taskUpdated' &&
            (event.payload as { task: TaskRow }).task.id === task.id &&
            (event.payload as { task: TaskRow }).task.status === 'succeeded',
        ),
      'the task to end, as the window hears it',
    );
    await ok('putTodos', { sessionId, items: [{ content: 'Ship it', status: 'pending', activeForm: 'Shipping it' }] });
    await ok('clearFinishedTasks', { sessionId });
    await ok('deleteSession', { id: sessionId });
    // Every message is a batch on the one channel.
    expect(new Set(window.webContents.sent.map((sent) => sent.channel))).toEqual(new Set([EVENTS_CHANNEL]));
    const heard = new Set(eventsSent(window.webContents).map((event) => event.name));
    for (const name of [
      'sessionUpserted',
      'taskUpdated',
      'taskOutput',
      'todosChanged',
      'tasksCleared',
      'sessionDeleted',
    ])
      expect(heard).toContain(name);
    // Each payload is the contract's shape.
    for (const { name, payload } of eventsSent(window.webContents))
      expect(contract.events[name as keyof typeof contract.events].payload.safeParse(payload).success).toBe(true);
  });

  it('forwards every event the contract declares to app windows only (the adapter, on a scripted endpoint)', async () => {
    const { fake, app, emit, serve } = await scriptedAdapter(async () => ({ ok: true, value: null }));
    const foreign = new FakeBrowserWindow({ show: true });
    await foreign.loadURL('https://evil.example/');
    const stop = serve();
    // One turn's events: one message at the end of the turn, all of them in the order they happened.
    for (const name of Object.keys(contract.events)) emit(name, { probe: name });
    expect(app.webContents.sent).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(app.webContents.sent).toEqual([
      {
        channel: EVENTS_CHANNEL,
        args: [Object.keys(contract.events).map((name) => ({ name, payload: { probe: name } }))],
      },
    ]);
    // A later turn's event is a message of its own.
    emit('openTask', { later: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(app.webContents.sent).toHaveLength(2);
    expect(app.webContents.sent[1]).toEqual({
      channel: EVENTS_CHANNEL,
      args: [[{ name: 'openTask', payload: { later: true } }]],
    });
    expect(foreign.webContents.sent).toEqual([]);
    stop();
    expect(emit.listening()).toBe(0);
    expect(fake.ipcMain.channels()).toEqual([]);
    app.destroy();
    foreign.destroy();
  });

  it('sends the events that came before an answer ahead of it', async () => {
    // The call changes something: its event is emitted before it answers.
    const { fake, app, emit, serve } = await scriptedAdapter(async (name) => {
      emit('sessionUpserted', { during: name });
      return { ok: true, value: 'answer' };
    });
    const stop = serve();
    const answer = await fake.ipcMain.invoke(app.webContents, app.webContents.mainFrame, CHANNELS[0]!, {});
    expect(answer).toEqual({ ok: true, value: 'answer' });
    // Already sent when the answer arrives, not at the end of the turn.
    expect(app.webContents.sent).toEqual([
      {
        channel: EVENTS_CHANNEL,
        args: [[{ name: 'sessionUpserted', payload: { during: Object.keys(contract.requests)[0] } }]],
      },
    ]);
    // Stopped: events still waiting, and later ones, go nowhere.
    emit('openTask', { after: true });
    stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(app.webContents.sent).toHaveLength(1);
    app.destroy();
  });
});
