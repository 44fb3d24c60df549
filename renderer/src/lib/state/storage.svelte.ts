import type { StorageState } from '@shared/contract.js';
import type { DroverApi } from '../api.js';

/**
 * Whether the disk holding Drover's data has room. A full disk is a lasting state the page shows
 * until Drover reports room again; it is read at start and after every reconnect, then kept by events.
 */
export class StorageWatch {
  readonly #api: DroverApi;
  #state = $state.raw<StorageState | null>(null);

  constructor(api: DroverApi) {
    this.#api = api;
  }

  /** The disk is full: what to tell the person; null while there is room (or before the first answer). */
  get fullMessage(): string | null {
    return this.#state?.full ? this.#state.message : null;
  }

  start(): () => void {
    const off = this.#api.on('storageChanged', ({ storage }) => {
      this.#state = storage;
    });
    void this.load();
    return off;
  }

  async load(): Promise<void> {
    try {
      this.#state = (await this.#api.appInfo({})).storage;
    } catch {
      // Not fatal: the next event or reconnect brings it.
    }
  }
}
