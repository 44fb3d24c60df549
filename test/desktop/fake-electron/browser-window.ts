import { EventEmitter } from 'node:events';
import type * as E from 'electron';
import { fakeEvent } from './event.js';
import type { FakeApp } from './app.js';

type WindowOpenHandler = Parameters<E.WebContents['setWindowOpenHandler']>[0];
type PermissionHandler = Parameters<E.Session['setPermissionRequestHandler']>[0];
type Permission = Parameters<NonNullable<PermissionHandler>>[1];

/** Every window of one fake app, with the focus among them and the close rules. */
export class FakeWindows {
  readonly all: FakeBrowserWindow[] = [];
  #app!: FakeApp;
  #nextId = 1;
  focused: FakeBrowserWindow | null = null;

  attach(app: FakeApp): void {
    this.#app = app;
  }

  get app(): FakeApp {
    return this.#app;
  }

  nextId(): number {
    return this.#nextId++;
  }

  /** Electron's quit: each window is asked to close; one that refuses cancels the quit. */
  closeAllForQuit(): boolean {
    for (const window of [...this.all]) {
      const event = fakeEvent();
      window.emit('close', event);
      if (event.defaultPrevented) return false;
      window.destroyQuietly();
    }
    return true;
  }

  destroyAll(): void {
    for (const window of [...this.all]) window.destroyQuietly();
  }

  removed(window: FakeBrowserWindow, byItself: boolean): void {
    const index = this.all.indexOf(window);
    if (index >= 0) this.all.splice(index, 1);
    if (this.focused === window) this.focused = null;
    if (byItself && this.all.length === 0) this.#app.allWindowsClosed();
  }
}

/** A frame of a page: the top one, or a subframe (an iframe) under it. */
export class FakeWebFrame
  extends EventEmitter
  implements Pick<E.WebFrameMain, 'url' | 'routingId' | 'processId' | 'name'>
{
  readonly routingId: number;
  readonly processId = 1;
  readonly name: string;
  readonly parent: FakeWebFrame | null;
  #url: () => string;

  constructor(url: () => string, parent: FakeWebFrame | null, routingId: number) {
    super();
    this.#url = url;
    this.parent = parent;
    this.routingId = routingId;
    this.name = parent ? `frame-${routingId}` : '';
  }

  get url(): string {
    return this.#url();
  }
}

/** The permission and cookie jar behind a page; Drover only sets its permission handler. */
export class FakeSession implements Pick<E.Session, 'setPermissionRequestHandler'> {
  permissionHandler: PermissionHandler = null;

  setPermissionRequestHandler(handler: PermissionHandler): void {
    this.permissionHandler = handler;
  }
}

/** A window's page. Without a permission handler Electron grants most requests; without an open handler, popups open. */
export class FakeWebContents
  extends EventEmitter
  implements Pick<E.WebContents, 'id' | 'getURL' | 'send' | 'setWindowOpenHandler' | 'isDestroyed' | 'loadURL'>
{
  readonly id: number;
  readonly session = new FakeSession();
  readonly mainFrame: FakeWebFrame;
  readonly sent: { channel: string; args: unknown[] }[] = [];
  #url = '';
  #destroyed = false;
  #openHandler: WindowOpenHandler | null = null;
  #frames = 1;

  constructor(id: number) {
    super();
    this.id = id;
    this.mainFrame = new FakeWebFrame(() => this.#url, null, 1);
  }

  getURL(): string {
    return this.#url;
  }

  async loadURL(url: string, _options?: E.LoadURLOptions): Promise<void> {
    this.#url = url;
    await new Promise((resolve) => setImmediate(resolve));
    this.emit('did-finish-load', fakeEvent());
  }

  send(channel: string, ...args: unknown[]): void {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    this.sent.push({ channel, args });
    // The page's side (FakeRenderer), where a test runs the preload.
    this.emit('fake-renderer-message', channel, args);
  }

  setWindowOpenHandler(handler: WindowOpenHandler): void {
    this.#openHandler = handler;
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  destroy(): void {
    this.#destroyed = true;
    this.emit('destroyed');
  }

  /** The test's hand: an iframe at `url` inside the page. */
  addSubframe(url: string): FakeWebFrame {
    this.#frames += 1;
    return new FakeWebFrame(() => url, this.mainFrame, this.#frames);
  }

  /** The page tries to go to `url` (a link, location.href); true when it went. */
  navigate(url: string): boolean {
    return this.#go('will-navigate', url);
  }

  /** A load of the page is redirected to `url` by a server; true when it followed. */
  redirect(url: string): boolean {
    return this.#go('will-redirect', url);
  }

  /** The page adds a <webview>; true when it was attached. */
  attachWebview(src: string): boolean {
    const event = fakeEvent();
    const webPreferences: E.WebPreferences = {};
    this.emit('will-attach-webview', event, webPreferences, { src });
    return !event.defaultPrevented;
  }

  /** window.open or a target=_blank link: what the open handler decided ('allow' without one). */
  openWindow(url: string): 'allow' | 'deny' {
    if (!this.#openHandler) return 'allow';
    return this.#openHandler({
      url,
      frameName: '',
      features: '',
      disposition: 'foreground-tab',
      referrer: { url: this.#url, policy: 'strict-origin-when-cross-origin' },
    }).action;
  }

  /** The page asks for a permission (camera, notifications…); resolves with the answer. */
  requestPermission(permission: Permission): Promise<boolean> {
    const handler = this.session.permissionHandler;
    if (!handler) return Promise.resolve(true);
    return new Promise((resolve) =>
      handler(this as unknown as E.WebContents, permission, resolve, {
        isMainFrame: true,
        requestingUrl: this.#url,
      }),
    );
  }

  #go(name: 'will-navigate' | 'will-redirect', url: string): boolean {
    const event = fakeEvent({
      url,
      isSameDocument: false,
      isMainFrame: true,
      frame: this.mainFrame,
      initiator: this.mainFrame,
    });
    this.emit(name, event, url, false, true, this.mainFrame.processId, this.mainFrame.routingId);
    if (event.defaultPrevented) return false;
    this.#url = url;
    return true;
  }
}

/**
 * A BrowserWindow: its options as given, its page, visibility, focus and the close rules (a
 * prevented `close` keeps it; the last one closing on its own emits the app's
 * `window-all-closed`). `show` focuses, as Electron's does.
 */
export class FakeBrowserWindow
  extends EventEmitter
  implements
    Pick<
      E.BrowserWindow,
      | 'id'
      | 'loadURL'
      | 'show'
      | 'hide'
      | 'focus'
      | 'blur'
      | 'isFocused'
      | 'isVisible'
      | 'isMinimized'
      | 'minimize'
      | 'restore'
      | 'close'
      | 'destroy'
      | 'isDestroyed'
    >
{
  /** Set by the fake module before any window is made. */
  static registry: FakeWindows;
  readonly id: number;
  readonly options: E.BrowserWindowConstructorOptions;
  readonly webContents: FakeWebContents;
  readonly #windows: FakeWindows;
  #visible = false;
  #minimized = false;
  #destroyed = false;

  constructor(options: E.BrowserWindowConstructorOptions = {}) {
    super();
    this.#windows = FakeBrowserWindow.registry;
    this.id = this.#windows.nextId();
    this.options = options;
    this.webContents = new FakeWebContents(this.id);
    this.#windows.all.push(this);
    this.#windows.app.emit('browser-window-created', fakeEvent(), this);
    this.#windows.app.emit('web-contents-created', fakeEvent(), this.webContents);
    if (options.show !== false) this.show();
  }

  static getAllWindows(): FakeBrowserWindow[] {
    return [...FakeBrowserWindow.registry.all];
  }

  static getFocusedWindow(): FakeBrowserWindow | null {
    return FakeBrowserWindow.registry.focused;
  }

  async loadURL(url: string, options?: E.LoadURLOptions): Promise<void> {
    await this.webContents.loadURL(url, options);
    if (!this.#destroyed) this.emit('ready-to-show');
  }

  show(): void {
    if (this.#destroyed) return;
    const wasVisible = this.#visible;
    this.#visible = true;
    this.#minimized = false;
    if (!wasVisible) this.emit('show');
    this.focus();
  }

  hide(): void {
    if (!this.#visible) return;
    this.#visible = false;
    this.blur();
    this.emit('hide');
  }

  focus(): void {
    if (this.#destroyed || this.#windows.focused === this) return;
    this.#windows.focused?.blur();
    this.#windows.focused = this;
    this.emit('focus');
  }

  blur(): void {
    if (this.#windows.focused !== this) return;
    this.#windows.focused = null;
    this.emit('blur');
  }

  isFocused(): boolean {
    return this.#windows.focused === this;
  }

  isVisible(): boolean {
    return this.#visible && !this.#minimized;
  }

  isMinimized(): boolean {
    return this.#minimized;
  }

  minimize(): void {
    this.#minimized = true;
    this.blur();
    this.emit('minimize');
  }

  restore(): void {
    if (!this.#minimized) return;
    this.#minimized = false;
    this.emit('restore');
  }

  /**
   * Windows asks whether the session may end (`query-session-end`, preventable: true when the app
   * held it) or says that it ends now (`session-end`, which nothing can hold). Neither closes the
   * window nor quits the app: Electron emits no before-quit or will-quit on a Windows shutdown.
   */
  emitSessionEnd(
    name: 'query-session-end' | 'session-end',
    reasons: E.WindowSessionEndEvent['reasons'] = ['shutdown'],
  ): boolean {
    const event: E.WindowSessionEndEvent = fakeEvent({ reasons });
    this.emit(name, event);
    return event.defaultPrevented;
  }

  /** The close button, or window.close(): `close` may be prevented. */
  close(): void {
    if (this.#destroyed) return;
    const event = fakeEvent();
    this.emit('close', event);
    if (event.defaultPrevented) return;
    this.#destroy(true);
  }

  destroy(): void {
    if (!this.#destroyed) this.#destroy(true);
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  /** Gone as part of a quit or exit: no `window-all-closed`. */
  destroyQuietly(): void {
    if (!this.#destroyed) this.#destroy(false);
  }

  #destroy(byItself: boolean): void {
    this.#destroyed = true;
    this.#visible = false;
    this.webContents.destroy();
    this.emit('closed');
    this.#windows.removed(this, byItself);
  }
}
