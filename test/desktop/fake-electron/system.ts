import { EventEmitter } from 'node:events';
import type * as E from 'electron';
import { fakeEvent } from './event.js';

type Backend = ReturnType<E.SafeStorage['getSelectedStorageBackend']>;

/** A message box the app opened, waiting for the test to press one of its buttons. */
export interface OpenMessageBox {
  options: E.MessageBoxOptions;
  /** The window it is attached to (a sheet on macOS), or null for a free-standing one. */
  parent: unknown;
  press(button: string): void;
}

/** dialog: error boxes are recorded; a message box waits until the test answers it. */
export class FakeDialog implements Pick<E.Dialog, 'showErrorBox' | 'showMessageBox' | 'showSaveDialog'> {
  readonly errorBoxes: { title: string; content: string }[] = [];
  readonly messageBoxes: OpenMessageBox[] = [];
  /** What the save dialog answers (default: the person cancelled). */
  saveAnswer: E.SaveDialogReturnValue = { canceled: true, filePath: '' };

  showErrorBox(title: string, content: string): void {
    this.errorBoxes.push({ title, content });
  }

  showMessageBox(window: E.BaseWindow, options: E.MessageBoxOptions): Promise<E.MessageBoxReturnValue>;
  showMessageBox(options: E.MessageBoxOptions): Promise<E.MessageBoxReturnValue>;
  showMessageBox(
    first: E.BaseWindow | E.MessageBoxOptions,
    second?: E.MessageBoxOptions,
  ): Promise<E.MessageBoxReturnValue> {
    const options = second ?? (first as E.MessageBoxOptions);
    return new Promise((resolve) => {
      const box: OpenMessageBox = {
        options,
        parent: second ? first : null,
        press: (button) => {
          const response = options.buttons?.indexOf(button) ?? -1;
          if (response < 0) throw new Error(`No button "${button}" in ${JSON.stringify(options.buttons)}`);
          this.messageBoxes.splice(this.messageBoxes.indexOf(box), 1);
          resolve({ response, checkboxChecked: false });
        },
      };
      this.messageBoxes.push(box);
    });
  }

  showSaveDialog(window: E.BaseWindow, options: E.SaveDialogOptions): Promise<E.SaveDialogReturnValue>;
  showSaveDialog(options: E.SaveDialogOptions): Promise<E.SaveDialogReturnValue>;
  async showSaveDialog(): Promise<E.SaveDialogReturnValue> {
    return this.saveAnswer;
  }
}

/** shell: what was handed to the OS. */
export class FakeShell implements Pick<E.Shell, 'openExternal' | 'showItemInFolder'> {
  readonly opened: string[] = [];
  readonly revealed: string[] = [];

  async openExternal(url: string, _options?: E.OpenExternalOptions): Promise<void> {
    this.opened.push(url);
  }

  showItemInFolder(fullPath: string): void {
    this.revealed.push(fullPath);
  }
}

/**
 * safeStorage with a chosen backend. `basic_text` is what Linux falls back to without a keyring:
 * Electron reports encryption as available, and encrypts with a password written in its source.
 */
export class FakeSafeStorage implements Pick<
  E.SafeStorage,
  'isEncryptionAvailable' | 'encryptString' | 'decryptString' | 'getSelectedStorageBackend'
> {
  backend: Backend = 'gnome_libsecret';
  available = true;
  static readonly PREFIX = 'v11:';

  isEncryptionAvailable(): boolean {
    return this.available;
  }

  encryptString(plainText: string): Buffer {
    if (!this.available)
      throw new Error(
        'Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.',
      );
    return Buffer.from(FakeSafeStorage.PREFIX + Buffer.from(plainText, 'utf8').toString('base64'));
  }

  decryptString(encrypted: Buffer): string {
    const text = encrypted.toString('utf8');
    if (!text.startsWith(FakeSafeStorage.PREFIX))
      throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    return Buffer.from(text.slice(FakeSafeStorage.PREFIX.length), 'base64').toString('utf8');
  }

  getSelectedStorageBackend(): Backend {
    return this.backend;
  }
}

export const makeNativeTheme = () =>
  ({
    shouldUseDarkColors: false,
    shouldUseHighContrastColors: false,
    themeSource: 'system',
  }) satisfies Pick<E.NativeTheme, 'shouldUseDarkColors' | 'shouldUseHighContrastColors' | 'themeSource'>;

/** powerMonitor: the test says when the system shuts down (macOS, Linux). */
export class FakePowerMonitor extends EventEmitter implements Pick<E.PowerMonitor, 'isOnBatteryPower'> {
  isOnBatteryPower(): boolean {
    return false;
  }

  /** The system is about to shut down; true when the app asked Electron to wait for it. */
  emitShutdown(): boolean {
    const event = fakeEvent();
    this.emit('shutdown', event);
    return event.defaultPrevented;
  }
}
