import type { WorkLedger } from './work-ledger.js';

/** Between looks at the lists clients read, for changes other processes made. */
export const WORK_WATCH_MS = 2_000;
/** A list is watched this long after a client last read it. */
export const WORK_WATCH_KEEP_MS = 10 * 60_000;

/**
 * Announces changes to the work lists clients read, whoever made them: this process says so at
 * once (`changed`); a sub-agent, a second Drover or a script changes only the database, so each
 * list read recently is looked at every WORK_WATCH_MS (its revision, one small query) and a
 * change is announced too. Nothing is polled while no client reads a list.
 */
export class WorkWatch {
  readonly #ledger: () => WorkLedger;
  readonly #emit: (listId: string, revision: number) => void;
  readonly #log: (message: string) => void;
  readonly #now: () => number;
  readonly #lists = new Map<string, { revision: number; until: number }>();
  #timer: NodeJS.Timeout | null = null;

  constructor(options: {
    ledger: () => WorkLedger;
    emit: (listId: string, revision: number) => void;
    log: (message: string) => void;
    now?: () => number;
  }) {
    this.#ledger = options.ledger;
    this.#emit = options.emit;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
  }

  /** A client read the list: watch it (again) for a while. */
  watch(listId: string): void {
    const known = this.#lists.get(listId);
    const revision = known?.revision ?? this.#revision(listId) ?? 0;
    this.#lists.set(listId, { revision, until: this.#now() + WORK_WATCH_KEEP_MS });
    if (!this.#timer) {
      this.#timer = setInterval(() => this.tick(), WORK_WATCH_MS);
      this.#timer.unref();
    }
  }

  /** This process changed the list: announce it now (the next look then sees nothing new). */
  changed(listId: string): void {
    const revision = this.#revision(listId);
    if (revision === null) return;
    const known = this.#lists.get(listId);
    if (known) known.revision = revision;
    this.#emit(listId, revision);
  }

  /** One look at every watched list (the timer's work; tests call it directly). */
  tick(): void {
    const now = this.#now();
    for (const [listId, known] of this.#lists) {
      if (known.until < now) {
        this.#lists.delete(listId);
        continue;
      }
      const revision = this.#revision(listId);
      if (revision === null || revision === known.revision) continue;
      known.revision = revision;
      this.#emit(listId, revision);
    }
    if (this.#lists.size === 0) this.dispose();
  }

  dispose(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #revision(listId: string): number | null {
    try {
      return this.#ledger().revision(listId);
    } catch (error) {
      this.#log(`work list ${listId} could not be looked at: ${(error as Error).message}`);
      return null;
    }
  }
}
