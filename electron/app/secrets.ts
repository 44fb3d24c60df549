import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileAtomic } from '../store/private-files.js';
import { safeStorage } from 'electron';
import type { SecretStore } from '../core/secrets.js';

/**
 * The desktop app keeps the model API key encrypted by the OS keychain (Keychain, DPAPI,
 * libsecret/kwallet). Linux's `basic_text` backend is a hard-coded password, not protection:
 * with it, nothing is stored and the person is told to use the environment instead.
 */
export class SafeStorageSecretStore implements SecretStore {
  readonly #file: string;
  readonly description = 'encrypted with your system keychain';

  constructor(userData: string) {
    this.#file = join(userData, 'secrets.bin');
  }

  get(): string | null {
    try {
      if (!safeStorage.isEncryptionAvailable()) return null;
      return safeStorage.decryptString(readFileSync(this.#file)) || null;
    } catch {
      return null;
    }
  }

  set(value: string | null): void {
    if (value === null) {
      rmSync(this.#file, { force: true });
      return;
    }
    if (!safeStorage.isEncryptionAvailable())
      throw new Error(
        'No system keychain is available to encrypt the key; set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment instead',
      );
    if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
      throw new Error(
        'This Linux session has no keyring (only the basic_text backend), so the key would not be protected; set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment instead',
      );
    }
    writePrivateFileAtomic(this.#file, safeStorage.encryptString(value));
  }
}
