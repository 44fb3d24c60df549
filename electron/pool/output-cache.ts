import type { TaskOutput } from '../../shared/schemas/task.js';
import { Slots } from '../core/slots.js';
import { keepWireJson } from '../core/wire-json.js';

/** Renders (a headless terminal each, sized to the log) that may run at once across the host. */
export const MAX_CONCURRENT_RENDERS = 2;
/**
 * Characters of rendered text kept for settled tasks, all entries together: a few dozen tails,
 * small beside the host's own memory (a flood must leave it within 20 % of where it was). An entry
 * read over a WebSocket also keeps its JSON, about its text's size again (wire-json.ts).
 */
export const RENDER_CACHE_MAX_CHARS = 4 * 1024 * 1024;

/**
 * The readable output of tasks, rendered at most a few at a time and remembered for settled
 * tasks. Rendering a 256 KiB tail through a headless terminal costs tens of milliseconds and
 * megabytes; a thousand reads of the same finished task at once used to render it a thousand
 * times side by side (31 s, 535 MB in issue #12). Now a settled task's output is rendered once:
 * its log never changes again, so the key (task, tail, log size) stays true. Concurrent reads
 * of one key share the render in progress; everything else waits for one of a few render slots,
 * so the event loop stays free for other requests.
 */
export class RenderedOutputs {
  readonly #done = new Map<string, TaskOutput>();
  readonly #pending = new Map<string, Promise<TaskOutput>>();
  readonly #slots: Slots;
  readonly #maxChars: number;
  #chars = 0;

  constructor(options: { maxConcurrent?: number; maxChars?: number } = {}) {
    this.#slots = new Slots(options.maxConcurrent ?? MAX_CONCURRENT_RENDERS);
    this.#maxChars = options.maxChars ?? RENDER_CACHE_MAX_CHARS;
  }

  /** `key` null: not cacheable (a running task), rendered in a slot. */
  read(key: string | null, render: () => Promise<TaskOutput>): Promise<TaskOutput> {
    if (key === null) return this.#slots.run(render);
    const hit = this.#done.get(key);
    if (hit) {
      // Least recently used goes first: a read moves the entry to the end.
      this.#done.delete(key);
      this.#done.set(key, hit);
      return Promise.resolve(hit);
    }
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const rendering = this.#slots.run(render).then(
      (output) => {
        this.#pending.delete(key);
        this.#remember(key, output);
        return output;
      },
      (error: unknown) => {
        this.#pending.delete(key);
        throw error;
      },
    );
    this.#pending.set(key, rendering);
    return rendering;
  }

  get size(): number {
    return this.#done.size;
  }

  /** Forgets every entry whose key starts with `prefix` (a cleared task, a deleted session). */
  forget(prefix: string): void {
    for (const [key, output] of this.#done) {
      if (!key.startsWith(prefix)) continue;
      this.#done.delete(key);
      this.#chars -= output.text.length;
    }
  }

  #remember(key: string, output: TaskOutput): void {
    // An answer too big to share the cache with others is simply not kept.
    if (output.text.length > this.#maxChars / 4) return;
    // It never changes again: every read sends the same JSON, made once (wire-json.ts).
    this.#done.set(key, keepWireJson(output));
    this.#chars += output.text.length;
    for (const [oldKey, old] of this.#done) {
      if (this.#chars <= this.#maxChars) break;
      this.#done.delete(oldKey);
      this.#chars -= old.text.length;
    }
  }
}
