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
 * the quit sequence as Electron runs it (electron/shell/browser/browser.cc, Browser::Quit):
 * `before-quit` is emitted inside quit() itself; unless prevented, the quit is under way and
 * another quit() is ignored until it ends or is cancelled; the windows then close from the event
 * loop (a prevented close cancels the quit), then will-quit and quit. `exit` ends at once,
 * without those events. Nothing here ends the test process: the exit code is recorded.
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
  /** What focus() was asked, in order. */
  readonly focusCalls: (E.FocusOptions | undefined)[] = [];
  /** A quit got past before-quit and has not ended or been cancelled. */
  #quitting = false;

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

  focus(options?: E.FocusOptions): void {
    this.focusCalls.push(options);
  }

  quit(): void {
    this.quitCalls += 1;
    if (this.#quitting || this.exitCode !== null) return;
    const before = fakeEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    this.#quitting = true;
    // Electron asks the windows to close from the event loop; their closing ends the quit.
    setImmediate(() => this.#closeAndQuit());
  }

  /** True while a quit is under way (past before-quit, not yet ended or cancelled). */
  get quitting(): boolean {
    return this.#quitting;
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

  #closeAndQuit(): void {
    if (this.exitCode !== null) return;
    const will = fakeEvent();
    const closed = this.#windows.closeAllForQuit();
    if (closed) this.emit('will-quit', will);
    this.#quitting = false;
    if (!closed || will.defaultPrevented) return;
    this.emit('quit', fakeEvent(), 0);
    this.exitCode = 0;
    this.endedBy = 'quit';
  }
}
