import { EventEmitter } from 'node:events';
import type * as E from 'electron';
import { fakeEvent } from './event.js';

/** An image read from a path; only its path and size matter to the tests. */
export class FakeNativeImage implements Pick<E.NativeImage, 'isEmpty' | 'getSize'> {
  readonly path: string;
  readonly size: E.Size;

  constructor(path: string, size: E.Size = { width: 256, height: 256 }) {
    this.path = path;
    this.size = size;
  }

  static createFromPath(path: string): FakeNativeImage {
    return new FakeNativeImage(path);
  }

  static createEmpty(): FakeNativeImage {
    return new FakeNativeImage('', { width: 0, height: 0 });
  }

  resize(options: E.ResizeOptions): FakeNativeImage {
    return new FakeNativeImage(this.path, {
      width: options.width ?? this.size.width,
      height: options.height ?? this.size.height,
    });
  }

  isEmpty(): boolean {
    return this.size.width === 0;
  }

  getSize(_scaleFactor?: number): E.Size {
    return this.size;
  }
}

/** One item of a menu, clickable as the person would. */
export class FakeMenuItem implements Pick<E.MenuItem, 'label' | 'enabled' | 'visible' | 'type'> {
  readonly label: string;
  readonly enabled: boolean;
  readonly visible: boolean;
  readonly type: E.MenuItem['type'];
  readonly #click: E.MenuItemConstructorOptions['click'];

  constructor(options: E.MenuItemConstructorOptions) {
    this.label = options.label ?? '';
    this.enabled = options.enabled ?? true;
    this.visible = options.visible ?? true;
    this.type = options.type ?? 'normal';
    this.#click = options.click;
  }

  /** Electron calls a disabled item's click never. */
  click(): void {
    if (!this.enabled || this.type === 'separator') throw new Error(`"${this.label}" cannot be clicked`);
    this.#click?.(this as unknown as E.MenuItem, undefined, {
      shiftKey: false,
      ctrlKey: false,
      altKey: false,
      metaKey: false,
      triggeredByAccelerator: false,
    });
  }
}

export class FakeMenu extends EventEmitter {
  static application: FakeMenu | null = null;
  readonly items: FakeMenuItem[];

  constructor(items: FakeMenuItem[] = []) {
    super();
    this.items = items;
  }

  static buildFromTemplate(template: (E.MenuItemConstructorOptions | E.MenuItem)[]): FakeMenu {
    // Drover passes plain options; a MenuItem carries the same fields.
    return new FakeMenu(template.map((options) => new FakeMenuItem(options as E.MenuItemConstructorOptions)));
  }

  static setApplicationMenu(menu: FakeMenu | null): void {
    FakeMenu.application = menu;
  }

  static getApplicationMenu(): FakeMenu | null {
    return FakeMenu.application;
  }

  /** The labels a person reads, separators left out. */
  labels(): string[] {
    return this.items.filter((item) => item.type !== 'separator').map((item) => item.label);
  }

  item(label: string): FakeMenuItem {
    const found = this.items.find((item) => item.label === label);
    if (!found) throw new Error(`No menu item "${label}" in ${JSON.stringify(this.labels())}`);
    return found;
  }
}

/** The tray icon: what it shows (tooltip, title, menu) and whether it is gone. */
export class FakeTray
  extends EventEmitter
  implements
    Pick<E.Tray, 'setToolTip' | 'setTitle' | 'getTitle' | 'setImage' | 'displayBalloon' | 'destroy' | 'isDestroyed'>
{
  static made: FakeTray[] = [];
  image: FakeNativeImage | string;
  tooltip = '';
  title = '';
  menu: FakeMenu | null = null;
  /** Every balloon shown from the icon (Windows). */
  readonly balloons: E.DisplayBalloonOptions[] = [];
  #destroyed = false;

  constructor(image: FakeNativeImage | string, _guid?: string) {
    super();
    this.image = image;
    FakeTray.made.push(this);
  }

  setToolTip(toolTip: string): void {
    this.tooltip = toolTip;
  }

  setTitle(title: string, _options?: E.TitleOptions): void {
    this.title = title;
  }

  getTitle(): string {
    return this.title;
  }

  setImage(image: string | E.NativeImage): void {
    this.image = image as unknown as FakeNativeImage;
  }

  /** Takes what Electron's takes, a menu from Menu.buildFromTemplate (the fake's, here). */
  setContextMenu(menu: FakeMenu | null): void {
    this.menu = menu;
  }

  displayBalloon(options: E.DisplayBalloonOptions): void {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    this.balloons.push(options);
  }

  destroy(): void {
    this.#destroyed = true;
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }
}

/** A system notification: shown ones are listed; the test clicks them. */
export class FakeNotification
  extends EventEmitter
  implements Pick<E.Notification, 'title' | 'body' | 'show' | 'close'>
{
  static supported = true;
  static shown: FakeNotification[] = [];
  title: string;
  body: string;
  readonly options: E.NotificationConstructorOptions;

  constructor(options: E.NotificationConstructorOptions = {}) {
    super();
    this.options = options;
    this.title = options.title ?? '';
    this.body = options.body ?? '';
  }

  static isSupported(): boolean {
    return FakeNotification.supported;
  }

  show(): void {
    FakeNotification.shown.push(this);
    this.emit('show', fakeEvent());
  }

  close(): void {
    this.emit('close', fakeEvent());
  }

  click(): void {
    this.emit('click', fakeEvent());
  }
}

/**
 * Checks against Electron's .d.ts where the fake's classes cannot `implements` Electron's (their
 * results are the fake's own objects): each compiles only while the fake takes exactly what
 * Electron's takes, so a change in Electron's signatures fails type-checking here.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Takes<F> = F extends (...args: infer A) => unknown ? A : never;
export const electronSignatures = {
  menuBuildFromTemplate: true,
  menuSetApplicationMenu: true,
  menuGetApplicationMenu: true,
  traySetContextMenu: true,
  trayConstructor: true,
  notificationConstructor: true,
  notificationIsSupported: true,
} satisfies {
  menuBuildFromTemplate: Same<Takes<typeof FakeMenu.buildFromTemplate>, Takes<typeof E.Menu.buildFromTemplate>>;
  menuSetApplicationMenu: Same<[E.Menu | null], Takes<typeof E.Menu.setApplicationMenu>>;
  menuGetApplicationMenu: Same<E.Menu | null, ReturnType<typeof E.Menu.getApplicationMenu>>;
  traySetContextMenu: Same<[E.Menu | null], Takes<E.Tray['setContextMenu']>>;
  trayConstructor: Same<
    ConstructorParameters<typeof E.Tray>,
    [image: E.NativeImage | string, guid?: string | undefined]
  >;
  notificationConstructor: Same<
    ConstructorParameters<typeof FakeNotification>,
    ConstructorParameters<typeof E.Notification>
  >;
  notificationIsSupported: Same<
    ReturnType<typeof FakeNotification.isSupported>,
    ReturnType<typeof E.Notification.isSupported>
  >;
};
