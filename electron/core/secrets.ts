import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileAtomic } from '../store/private-files.js';

/** Where the model API key is kept. It never leaves the main process. */
export interface SecretStore {
  get(): string | null;
  /** null removes it. Throws with a reason when the key cannot be stored safely. */
  set(value: string | null): void;
  /** Said in the settings screen: where the key lives. */
  readonly description: string;
}

/**
 * The headless host's store: a file readable only by its owner in the data folder. (The
 * desktop app encrypts with the OS keychain instead; see electron/app/secrets.ts.)
 */
export class FileSecretStore implements SecretStore {
  readonly #file: string;
  readonly description = 'in secrets.json in the data folder, readable only by you';

  constructor(dataDir: string) {
    this.#file = join(dataDir, 'secrets.json');
  }

  get(): string | null {
    try {
      const value = (JSON.parse(readFileSync(this.#file, 'utf8')) as { apiKey?: unknown }).apiKey;
      return typeof value === 'string' && value ? value : null;
    } catch {
      return null;
    }
  }

  set(value: string | null): void {
    if (value === null) {
      rmSync(this.#file, { force: true });
      return;
    }
    writePrivateFileAtomic(this.#file, JSON.stringify({ apiKey: value }));
  }
}
