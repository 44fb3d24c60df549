import { statSync } from 'node:fs';
import { DroverError } from '../../shared/ipc/errors.js';

/**
 * The data folder as it was when Drover opened it. A log is made inside it for every task; if the
 * folder was moved or removed under a running Drover, making the log's folders would silently
 * create a new, empty data folder at the old path while the open database kept writing to the
 * moved one. A task start is refused instead, saying why.
 */
export class DataFolderWatch {
  readonly #path: string;
  readonly #identity: string | null;

  constructor(path: string) {
    this.#path = path;
    this.#identity = identityOf(path);
  }

  /** Throws when the folder at the path is no longer the one Drover opened. */
  check(): void {
    if (this.#identity === null || identityOf(this.#path) === this.#identity) return;
    throw new DroverError(
      'unavailable',
      `The data folder ${this.#path} was moved or removed while Drover ran, so no task can be started: its log would land outside Drover's data. Quit Drover and start it again where its data now is.`,
    );
  }
}

function identityOf(path: string): string | null {
  try {
    const stats = statSync(path);
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return null;
  }
}
