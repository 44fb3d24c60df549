import type { UnixOs } from './unix-os.js';

/** How long one scan for marked processes is reused. */
export const MARK_SCAN_MS = 1_000;

/**
 * One scan of the processes carrying an instance's mark variable, shared by everything that
 * asks within MARK_SCAN_MS: the probes of a listing, and every task waiting for its last
 * process. The scan reads every process on the machine, so it is done once for all of them.
 * A scan that could not run (a `ps` that failed) is remembered as that failure, never as "none".
 */
export class MarkScan {
  readonly #os: Pick<UnixOs, 'markedProcesses'>;
  readonly variable: string;
  #at = 0;
  #found: Map<string, number[]> | Error | null = null;

  constructor(os: Pick<UnixOs, 'markedProcesses'>, variable: string) {
    this.#os = os;
    this.variable = variable;
  }

  /** Marked processes by task id; a fresh scan when asked or when the last one is too old. Throws when it could not run. */
  all(fresh = false): Map<string, number[]> {
    if (fresh || this.#found === null || Date.now() - this.#at > MARK_SCAN_MS) {
      try {
        this.#found = this.#os.markedProcesses(this.variable);
      } catch (error) {
        this.#found = error instanceof Error ? error : new Error(String(error));
      }
      this.#at = Date.now();
    }
    if (this.#found instanceof Error) throw this.#found;
    return this.#found;
  }

  /** Processes were signalled or reaped: the next question scans again. */
  invalidate(): void {
    this.#found = null;
  }
}
