import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, vi } from 'vitest';
import { STOP_SIGNALS } from '../../electron/core/stopping.js';
import { EVENTS_CHANNEL, REQUEST_CHANNEL_PREFIX } from '../../shared/ipc/bridge.js';
import type { Result } from '../../shared/ipc/errors.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { tempDir, until } from '../helpers.js';
import {
  createFakeElectron,
  type FakeBrowserWindow,
  type FakeElectron,
  type FakeTray,
  type FakeWebContents,
} from './fake-electron/index.js';

/**
 * Runs the real electron/main.ts and electron/app/* on the fake Electron: a fresh module graph
 * per start (so main.ts runs its top level again), a temp app folder holding a built renderer,
 * and a temp userData folder. Every test file installs the fake with
 * `vi.mock('electron', () => electronModule(currentFake))`. One app at a time: the code under
 * test reads Electron through the current fake.
 */
let current: FakeElectron | null = null;

export function currentFake(): FakeElectron {
  if (!current) throw new Error('No fake Electron is installed; call startDesktop first');
  return current;
}

export const RENDERER_HTML = '<!doctype html><title>Drover</title><div id="app"></div>';

export interface StartOptions {
  /** Another Drover holds the single-instance lock. */
  lockHeldElsewhere?: boolean;
  /** Runs on the userData folder before the app starts (a damaged database). */
  prepareUserData?: (userData: string) => void;
  /** Runs on the fake before main.ts is imported (a keyring-less safeStorage). */
  configure?: (fake: FakeElectron) => void;
  /** Wait for the window (default); false when the start is expected to fail or quit. */
  expectWindow?: boolean;
}

export interface Desktop {
  fake: FakeElectron;
  appPath: string;
  userData: string;
  window: FakeBrowserWindow;
  tray: FakeTray;
  /** A request from the app's own page, as the preload sends it. */
  call<T = unknown>(name: string, input?: unknown): Promise<Result<T>>;
  /** A request that must succeed; its value. */
  ok<T = unknown>(name: string, input?: unknown): Promise<T>;
  /** A session made through the app, for tasks. */
  session(): Promise<string>;
  /** A real background task through the app; resolves once it runs. */
  startTask(sessionId: string, command: string): Promise<TaskRow>;
  /** Resolves with the exit code once the app has exited. */
  exited(): Promise<number>;
}

/** Every event sent to a window so far, in order, out of the batches it came in (EVENTS_CHANNEL). */
export function eventsSent(contents: FakeWebContents): { name: string; payload: unknown }[] {
  return contents.sent
    .filter((sent) => sent.channel === EVENTS_CHANNEL)
    .flatMap((sent) => sent.args[0] as { name: string; payload: unknown }[]);
}

const started: FakeElectron[] = [];

/**
 * The process's listeners before the test, for the events an app hooks until its process ends,
 * which here it never does. Each test loads the app's modules anew, so once its app has exited
 * they are taken off; exit hooks (terminal-gate.ts removes its gate folders in one) are run first,
 * as the process's exit would run them.
 */
const PROCESS_EVENTS = [...STOP_SIGNALS, 'exit'] as const;
const processEvents: NodeJS.EventEmitter = process;
const listenersBefore = new Map<string, unknown[]>();
beforeEach(() => {
  for (const event of PROCESS_EVENTS) listenersBefore.set(event, processEvents.listeners(event));
});

afterEach(async () => {
  // Whatever the test left, the services drain: quit, confirming any question, until the app exits.
  for (const fake of started.splice(0)) {
    if (fake.app.exitCode !== null) continue;
    // The app's modules read Electron through the current fake.
    current = fake;
    fake.app.quit();
    await until(
      () => {
        for (const box of fake.dialog.messageBoxes) box.press(String(box.options.buttons?.[0]));
        return fake.app.exitCode !== null;
      },
      'the app to exit after the test',
      15_000,
    );
  }
  current = null;
  for (const event of PROCESS_EVENTS)
    for (const listener of processEvents.listeners(event) as ((code?: number) => void)[]) {
      if (listenersBefore.get(event)?.includes(listener)) continue;
      processEvents.off(event, listener);
      if (event === 'exit') listener(0);
    }
});

export async function startDesktop(options: StartOptions = {}): Promise<Desktop> {
  if (started.some((fake) => fake.app.exitCode === null)) throw new Error('One app per test: the last one still runs');
  const appPath = tempDir('drover-app-');
  mkdirSync(join(appPath, 'out', 'renderer', 'assets'), { recursive: true });
  writeFileSync(join(appPath, 'out', 'renderer', 'index.html'), RENDERER_HTML);
  writeFileSync(join(appPath, 'out', 'renderer', 'assets', 'app.js'), 'console.log("drover")');
  mkdirSync(join(appPath, 'build'));
  writeFileSync(join(appPath, 'build', 'icon.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  const userData = tempDir('drover-userdata-');
  options.prepareUserData?.(userData);

  const fake = createFakeElectron({
    appPath,
    userData,
    home: tempDir('drover-home-'),
    lockHeldElsewhere: options.lockHeldElsewhere ?? false,
  });
  options.configure?.(fake);
  current = fake;
  started.push(fake);
  vi.resetModules();
  await import('../../electron/main.js');
  fake.app.emitReady();

  const call = async <T>(name: string, input: unknown = {}): Promise<Result<T>> => {
    const window = fake.windows.all[0];
    if (!window) throw new Error('No window to call from');
    return (await fake.ipcMain.invoke(
      window.webContents,
      window.webContents.mainFrame,
      REQUEST_CHANNEL_PREFIX + name,
      input,
    )) as Result<T>;
  };
  const ok = async <T>(name: string, input: unknown = {}): Promise<T> => {
    const result = await call<T>(name, input);
    if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
    return result.value;
  };
  const desktop = {
    fake,
    appPath,
    userData,
    call,
    ok,
    session: async () => (await ok<{ id: string }>('createSession', { title: 'Desk' })).id,
    startTask: async (sessionId: string, command: string) => {
      const task = await ok<TaskRow>('startTask', { sessionId, command });
      await until(
        async () => (await ok<{ task: TaskRow }>('getTask', { sessionId, taskId: task.id })).task.status === 'running',
        `${command} to run`,
      );
      return (await ok<{ task: TaskRow }>('getTask', { sessionId, taskId: task.id })).task;
    },
    exited: async () => {
      await until(() => fake.app.exitCode !== null, 'the app to exit', 15_000);
      return fake.app.exitCode!;
    },
  };
  if (options.expectWindow === false) return desktop as Desktop;
  await until(() => fake.windows.all[0]?.isVisible() === true, 'the main window to show');
  return Object.assign(desktop, { window: fake.windows.all[0]!, tray: fake.trays[0]! });
}

/** The label of the tray menu's first line ("1 running", "No tasks running"). */
export function trayHeadline(tray: FakeTray): string {
  return tray.menu?.items[0]?.label ?? '';
}
