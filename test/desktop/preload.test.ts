import { describe, expect, it, vi } from 'vitest';
import { contract } from '../../shared/contract.js';
import { BRIDGE_KEY, EVENTS_CHANNEL, type DroverBridge } from '../../shared/ipc/bridge.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { until } from '../helpers.js';
import { electronModule, updaterModule, type FakeWebContents } from './fake-electron/index.js';
import { currentFake, startDesktop } from './desktop-harness.js';

vi.mock('electron', () => electronModule(currentFake));
vi.mock('electron-updater', () => updaterModule(currentFake));

/** The real electron/preload.ts, run on the page side of the app's window; what it exposes. */
async function loadPreload(): Promise<{ bridge: DroverBridge; listeners: () => number; contents: FakeWebContents }> {
  const desktop = await startDesktop();
  const page = desktop.fake.attachRenderer(desktop.window.webContents);
  vi.resetModules();
  await import('../../electron/preload.js');
  expect([...page.exposed.keys()]).toEqual([BRIDGE_KEY]);
  return {
    bridge: page.exposed.get(BRIDGE_KEY) as DroverBridge,
    listeners: () => page.ipcRenderer.listenerCount(EVENTS_CHANNEL),
    contents: desktop.window.webContents,
  };
}

describe('the preload under the fake Electron', () => {
  it("exposes one function per request of the contract, each answered by the app's services", async () => {
    const { bridge } = await loadPreload();
    expect(Object.keys(bridge.requests).sort()).toEqual(Object.keys(contract.requests).sort());
    expect(await bridge.requests.appInfo!({})).toMatchObject({ ok: true, value: { host: 'electron' } });
    expect(await bridge.requests.createSession!({ title: 42 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
  });

  it("passes on a batch's events one by one, in order, and only the names the contract declares", async () => {
    const { bridge, listeners, contents } = await loadPreload();
    const heard: { name: string; payload: unknown }[] = [];
    const stop = bridge.onEvent((name, payload) => heard.push({ name, payload }));
    expect(listeners()).toBe(1);
    contents.send(EVENTS_CHANNEL, [
      { name: 'todosChanged', payload: { n: 1 } },
      { name: 'evalInPage', payload: { n: 2 } },
      'not an event',
      null,
      { name: 42, payload: { n: 3 } },
      { payload: { n: 4 } },
      { name: 'openTask', payload: { n: 5 } },
    ]);
    contents.send(EVENTS_CHANNEL, { name: 'openTask', payload: 'not a batch' });
    contents.send(EVENTS_CHANNEL, [{ name: 'sessionDeleted', payload: { n: 6 } }]);
    await until(() => heard.length === 3, 'the batches to reach the page');
    expect(heard).toEqual([
      { name: 'todosChanged', payload: { n: 1 } },
      { name: 'openTask', payload: { n: 5 } },
      { name: 'sessionDeleted', payload: { n: 6 } },
    ]);
    stop();
    expect(listeners()).toBe(0);
  });

  it("keeps passing on a batch when the page's listener throws on one event, and reports the error", async () => {
    const { bridge, contents } = await loadPreload();
    const heard: string[] = [];
    bridge.onEvent((name) => {
      heard.push(name);
      if (name === 'todosChanged') throw new Error('the page failed on todosChanged');
    });
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      contents.send(EVENTS_CHANNEL, [
        { name: 'todosChanged', payload: {} },
        { name: 'openTask', payload: {} },
      ]);
      await until(() => heard.length === 2, 'the batch to reach the page');
      expect(heard).toEqual(['todosChanged', 'openTask']);
      expect(reported).toHaveBeenCalledWith(
        'Drover: an event listener failed:',
        new Error('the page failed on todosChanged'),
      );
    } finally {
      reported.mockRestore();
    }
  });

  it("hears the real services' events through the window", async () => {
    const { bridge } = await loadPreload();
    const heard: { name: string; payload: unknown }[] = [];
    bridge.onEvent((name, payload) => heard.push({ name, payload }));
    const made = await bridge.requests.createSession!({ title: 'Through the preload' });
    if (!made.ok) throw new Error(made.error.message);
    const sessionId = (made.value as { id: string }).id;
    const started = await bridge.requests.startTask!({ sessionId, command: 'echo through-the-preload' });
    if (!started.ok) throw new Error(started.error.message);
    const taskId = (started.value as TaskRow).id;
    await until(
      () =>
        heard.some(
          ({ name, payload }) =>
            name === 'taskUpdated' &&
            (payload as { task: TaskRow }).task.id === taskId &&
            (payload as { task: TaskRow }).task.status === 'succeeded',
        ),
      'the task to end, as the page hears it',
    );
    expect(heard[0]).toMatchObject({ name: 'sessionUpserted', payload: { session: { id: sessionId } } });
  });
});
