import { FULL_BELOW_BYTES, freeBytes, fullMessage, isNoRoom } from './no-room.js';
import type { StorageState } from '../../shared/schemas/storage.js';

/** While the disk is full, its free space is looked at this often; work resumes on the first look that finds room. */
export const DISK_RECHECK_MS = 2_000;
/**
 * Free bytes that count as room again. Well above one SQLite page or log batch, so a disk that
 * frees a few kilobytes does not flap between full and not full on every write.
 */
export const RESUME_FREE_BYTES = 1024 * 1024;

export interface DiskWatchOptions {
  folder: string;
  /** Told of every change between full and not full. */
  onChange: (state: StorageState) => void;
  /** Free bytes on the folder's disk; null when that cannot be told (tests pass their own). */
  freeBytes?: (folder: string) => number | null;
  recheckMs?: number;
  now?: () => number;
}

/**
 * Knows whether the disk under the data folder has room. Every writer reports a failure for
 * lack of room here; while full, the free space is looked at every few seconds, and once there is
 * room again every writer that waits is told to resume. Nothing is thrown away while it waits:
 * unsaved rows stay in memory, and a log records how much output it missed.
 */
export class DiskWatch {
  readonly #folder: string;
  readonly #onChange: (state: StorageState) => void;
  readonly #freeBytes: (folder: string) => number | null;
  readonly #recheckMs: number;
  readonly #now: () => number;
  readonly #resumers = new Set<() => void>();
  #since: number | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: DiskWatchOptions) {
    this.#folder = options.folder;
    this.#onChange = options.onChange;
    this.#freeBytes = options.freeBytes ?? freeBytes;
    this.#recheckMs = options.recheckMs ?? DISK_RECHECK_MS;
    this.#now = options.now ?? Date.now;
    const free = this.#freeBytes(this.#folder);
    // At start, a disk already (almost) out of room counts as full before anything fails.
    if (free !== null && free < FULL_BELOW_BYTES) this.#becomeFull();
  }

  get full(): boolean {
    return this.#since !== null;
  }

  get state(): StorageState {
    return this.#since === null
      ? { full: false, folder: this.#folder, since: null, message: null }
      : {
          full: true,
          folder: this.#folder,
          since: new Date(this.#since).toISOString(),
          message: fullMessage(this.#folder),
        };
  }

  /** Reports a failed write: true (and the disk counts as full) when it failed for lack of room. */
  noteFailure(error: unknown): boolean {
    if (!isNoRoom(error, this.#folder)) return false;
    this.#becomeFull();
    return true;
  }

  /** Called once each time room returns. */
  onResume(listener: () => void): () => void {
    this.#resumers.add(listener);
    return () => this.#resumers.delete(listener);
  }

  /** Looks now rather than at the next tick (a person who just freed space should not wait). */
  recheck(): boolean {
    if (this.#since === null) return true;
    const free = this.#freeBytes(this.#folder);
    if (free === null || free < RESUME_FREE_BYTES) return false;
    this.#since = null;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#onChange(this.state);
    for (const resume of [...this.#resumers]) {
      try {
        resume();
      } catch (error) {
        console.error('[drover] resuming after a full disk failed:', error);
      }
    }
    return true;
  }

  dispose(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#resumers.clear();
  }

  #becomeFull(): void {
    if (this.#since !== null) return;
    this.#since = this.#now();
    this.#timer = setInterval(() => this.recheck(), this.#recheckMs);
    this.#timer.unref();
    this.#onChange(this.state);
  }
}
