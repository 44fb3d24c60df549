import { EventEmitter } from 'node:events';
import type * as E from 'electron';
import { fakeEvent } from './event.js';
import type { FakeWindows } from './browser-window.js';

type PathName = Parameters<E.App['getPath']>[0];

export interface FakeAppOptions {
  appPath: string;
  userData: string;
  /** The person's home folder (where tasks start by default). */
  home: string;
  /** Another instance already holds the single-instance lock. */
  lockHeldElsewhere?: boolean;
}

/**
 * Electron's `app`, as Drover uses it: the ready promise, paths, the single-instance lock, and
 * the quit sequence as Electron runs it (before-quit, then each window's close, then will-quit and
 * quit; any of them can be prevented, and a prevented close cancels the quit). `exit` ends at
 * once, without those events. Nothing here ends the test process: the exit code is recorded.
 */
export class FakeApp
  extends EventEmitter
  implements
    Pick<
      E.App,
      | 'getAppPath'
      | 'getPath'
      | 'getVersion'
      | 'getName'
      | 'isReady'
      | 'whenReady'
      | 'requestSingleInstanceLock'
      | 'hasSingleInstanceLock'
      | 'quit'
      | 'exit'
      | 'focus'
    >
{
  readonly #options: FakeAppOptions;
  readonly #windows: FakeWindows;
  readonly #ready: Promise<void>;
  #resolveReady!: () => void;
  #isReady = false;
  #hasLock = false;
  /** Set by exit(), or by a quit that ran to the end. */
  exitCode: number | null = null;
  /** How many times quit() was called, and the codes exit() was called with. */
  quitCalls = 0;
  readonly exitCalls: number[] = [];
  /** How the app ended: a quit that ran through its events (where electron-updater installs), or exit(). */
  endedBy: 'quit' | 'exit' | null = null;

  constructor(options: FakeAppOptions, windows: FakeWindows) {
    super();
    this.#options = options;
    this.#windows = windows;
    this.#ready = new Promise((resolve) => (this.#resolveReady = resolve));
  }

  getAppPath(): string {
    return this.#options.appPath;
  }

  getPath(name: PathName): string {
    if (name === 'userData') return this.#options.userData;
    if (name === 'home') return this.#options.home;
    return `${this.#options.home}/${name}`;
  }

  getVersion(): string {
    return '0.0.0-test';
  }

  getName(): string {
    return 'Drover';
  }

  isReady(): boolean {
    return this.#isReady;
  }

  whenReady(): Promise<void> {
    return this.#ready;
  }

  requestSingleInstanceLock(_additionalData?: Record<any, any>): boolean {
    this.#hasLock = !this.#options.lockHeldElsewhere;
    return this.#hasLock;
  }

  hasSingleInstanceLock(): boolean {
    return this.#hasLock;
  }

  focus(_options?: E.FocusOptions): void {}

  quit(): void {
    this.quitCalls += 1;
    // Electron runs the sequence from the event loop, never inside the caller.
    setImmediate(() => this.#runQuit());
  }

  exit(exitCode = 0): void {
    this.exitCalls.push(exitCode);
    if (this.exitCode !== null) return;
    this.exitCode = exitCode;
    this.endedBy = 'exit';
    this.#windows.destroyAll();
  }

  /** The test's hand: the app becomes ready (Electron's `ready`, then the whenReady promise). */
  emitReady(): void {
    this.#isReady = true;
    this.emit('ready', fakeEvent(), {});
    this.#resolveReady();
  }

  /** Another copy of the app was started and handed over to this one. */
  emitSecondInstance(argv: string[] = ['drover']): void {
    this.emit('second-instance', fakeEvent(), argv, process.cwd(), {});
  }

  /** The dock icon was clicked (macOS). */
  emitActivate(hasVisibleWindows: boolean): void {
    this.emit('activate', fakeEvent(), hasVisibleWindows);
  }

  /** The last window closed on its own (not during a quit): Electron quits unless someone listens. */
  allWindowsClosed(): void {
    if (this.listenerCount('window-all-closed') === 0) this.quit();
    else this.emit('window-all-closed');
  }

  #runQuit(): void {
    if (this.exitCode !== null) return;
    const before = fakeEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    if (!this.#windows.closeAllForQuit()) return;
    const will = fakeEvent();
    this.emit('will-quit', will);
    if (will.defaultPrevented) return;
    this.emit('quit', fakeEvent(), 0);
    this.exitCode = 0;
    this.endedBy = 'quit';
  }
}
