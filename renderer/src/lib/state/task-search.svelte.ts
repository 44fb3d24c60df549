import { isSettled } from '@shared/domain/task-status.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** A matching line of the whole log, from the host's scan. */
export interface FoundLine {
  line: number;
  /** The line's first byte in the log. */
  byte: number;
  count: number;
  text: string;
}

/** What the terminal does for a search: highlight, select and scroll (the xterm search addon). */
export interface TerminalFinder {
  /** Highlights every match of `query`; `newest` selects the last one, else the next after the current. */
  find(query: string, direction: 'next' | 'previous'): void;
  /** Selects the first (or last) match in the terminal, wherever the current one is. */
  edge(query: string, which: 'first' | 'last'): void;
  /** Removes the current match's selection, keeping the highlights. */
  unselect(): void;
  clear(): void;
}

/** Matching lines listed at most (the count goes on past them). */
export const LISTED_LINES = 500;
/** Typing waits this long for a pause before the whole log is scanned. */
const TYPING_PAUSE_MS = 150;

/**
 * The search of one task's log, in its terminal view. The terminal holds only the log's tail, so
 * the count ("3 of 41") comes from the host's scan of the whole log on disk, followed while the
 * task prints (each scan resumes at the last unfinished line, so it costs only the new output).
 * The terminal highlights and selects the matches it holds; a match in older output, before the
 * terminal's first byte, is shown as its line, with its number, beside the terminal.
 */
export class TaskSearchState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  readonly #taskId: string;
  /** Where the terminal's text begins in the log. */
  readonly #shownFrom: () => number;
  #finder: TerminalFinder | null = null;
  #open = $state(false);
  #query = $state('');
  /** Occurrences in finished lines, and in the unfinished last one. */
  #settledTotal = $state(0);
  #pendingTotal = $state(0);
  #lines = $state.raw<readonly FoundLine[]>([]);
  #truncated = $state(false);
  #scanned = $state(false);
  #error = $state<string | null>(null);
  /** The terminal's own matches: how many it highlights, and which one is selected (-1: none). */
  #inTerminal = $state(0);
  #terminalIndex = $state(-1);
  /** The older match shown, as an index into `earlier`; null while the current match is in the terminal. */
  #earlierIndex = $state<number | null>(null);
  #resume = { byte: 0, line: 1 };
  #seq = 0;
  #inFlight = false;
  #dirty = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(api: DroverApi, sessionId: string, taskId: string, shownFrom: () => number) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#taskId = taskId;
    this.#shownFrom = shownFrom;
  }

  get open(): boolean {
    return this.#open;
  }

  get query(): string {
    return this.#query;
  }

  get error(): string | null {
    return this.#error;
  }

  /** Every occurrence in the whole log (at least what the terminal shows, which may be newer than the last scan). */
  get total(): number {
    return Math.max(this.#settledTotal + this.#pendingTotal, this.#inTerminal);
  }

  /** The whole log's scan has answered for this query. */
  get scanned(): boolean {
    return this.#scanned;
  }

  /** More lines matched than are listed (older matches past the list are counted but cannot be shown). */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** Matching lines that begin before the terminal's text: older output the terminal does not hold. */
  get earlier(): readonly FoundLine[] {
    const from = this.#shownFrom();
    return from === 0 ? [] : this.#lines.filter((line) => line.byte < from);
  }

  /** The older line shown as the current match, or null. */
  get earlierMatch(): FoundLine | null {
    return this.#earlierIndex === null ? null : (this.earlier[this.#earlierIndex] ?? null);
  }

  /** Which occurrence is current, counting from the log's first (1-based); 0 when none is. */
  get position(): number {
    if (this.#earlierIndex !== null) {
      return this.earlier.slice(0, this.#earlierIndex).reduce((sum, line) => sum + line.count, 0) + 1;
    }
    if (this.#terminalIndex < 0) return 0;
    return Math.min(this.total, this.total - this.#inTerminal + this.#terminalIndex + 1);
  }

  /** The terminal's view (TaskTerminal) lends its search here; returns a function that takes it back. */
  attach(finder: TerminalFinder): () => void {
    this.#finder = finder;
    return () => {
      if (this.#finder === finder) this.#finder = null;
    };
  }

  /** The terminal's matches changed (the addon's results event). */
  terminalResults(index: number, count: number): void {
    this.#inTerminal = count;
    // The addon searches again by itself after output or a resize and selects a match; while an
    // older line is the current match, that selection is not the person's and is taken back.
    if (this.#earlierIndex !== null && index >= 0) {
      this.#terminalIndex = -1;
      this.#finder?.unselect();
      return;
    }
    this.#terminalIndex = index;
  }

  show(): void {
    this.#open = true;
  }

  /** Closes the search: highlights go, the count is forgotten. */
  close(): void {
    this.#open = false;
    this.setQuery('');
  }

  /** Follows the task's output while the search is open; returns a function that stops. */
  start(): () => void {
    const offs = [
      this.#api.on('taskOutput', ({ sessionId, taskId }) => {
        if (sessionId === this.#sessionId && taskId === this.#taskId) this.#grew();
      }),
      this.#api.on('taskUpdated', ({ task }) => {
        if (task.sessionId === this.#sessionId && task.id === this.#taskId && isSettled(task.status)) this.#grew();
      }),
    ];
    return () => {
      for (const off of offs) off();
      clearTimeout(this.#timer);
      this.#seq++;
      this.#finder = null;
    };
  }

  /** A new query: the terminal highlights at once (newest match current); the whole log is scanned after a pause in typing. */
  setQuery(query: string): void {
    this.#query = query;
    this.#seq++;
    clearTimeout(this.#timer);
    this.#settledTotal = 0;
    this.#pendingTotal = 0;
    this.#lines = [];
    this.#truncated = false;
    this.#scanned = false;
    this.#error = null;
    this.#earlierIndex = null;
    this.#resume = { byte: 0, line: 1 };
    this.#inFlight = false;
    this.#dirty = false;
    if (query === '') {
      this.#inTerminal = 0;
      this.#terminalIndex = -1;
      this.#finder?.clear();
      return;
    }
    this.#finder?.find(query, 'previous');
    this.#timer = setTimeout(() => void this.#scan(), TYPING_PAUSE_MS);
  }

  /** The next match, towards the end of the log; past the last, the log's first (older output first). */
  next(): void {
    const query = this.#query;
    if (!query || this.total === 0) return;
    const earlier = this.earlier;
    if (this.#earlierIndex !== null) {
      if (this.#earlierIndex < earlier.length - 1) this.#earlierIndex++;
      else {
        this.#earlierIndex = null;
        this.#finder?.edge(query, 'first');
      }
      return;
    }
    const atLast = this.#terminalIndex >= 0 && this.#terminalIndex === this.#inTerminal - 1;
    if ((atLast || this.#inTerminal === 0) && earlier.length > 0) return this.#toEarlier(0);
    this.#finder?.find(query, 'next');
  }

  /** The match before, towards the start of the log; before the terminal's first, older output's last. */
  previous(): void {
    const query = this.#query;
    if (!query || this.total === 0) return;
    const earlier = this.earlier;
    if (this.#earlierIndex !== null) {
      if (this.#earlierIndex > 0) this.#earlierIndex--;
      else if (this.#inTerminal > 0) {
        this.#earlierIndex = null;
        this.#finder?.edge(query, 'last');
      } else this.#earlierIndex = earlier.length - 1;
      return;
    }
    if ((this.#terminalIndex === 0 || this.#inTerminal === 0) && earlier.length > 0)
      return this.#toEarlier(earlier.length - 1);
    this.#finder?.find(query, 'previous');
  }

  #toEarlier(index: number): void {
    this.#earlierIndex = index;
    this.#terminalIndex = -1;
    this.#finder?.unselect();
  }

  #grew(): void {
    if (!this.#query) return;
    // Output arriving while a scan runs (the first one included) is scanned again once it answers.
    if (this.#inFlight) {
      this.#dirty = true;
      return;
    }
    if (!this.#scanned) return;
    void this.#scan();
  }

  /** Scans from where the last scan left off: only the new output, and the line that was unfinished. */
  async #scan(): Promise<void> {
    const seq = this.#seq;
    const query = this.#query;
    this.#inFlight = true;
    this.#dirty = false;
    try {
      const found = await this.#api.scanTaskLog({
        sessionId: this.#sessionId,
        taskId: this.#taskId,
        query,
        maxMatches: Math.max(1, LISTED_LINES - this.#lines.length),
        fromByte: this.#resume.byte,
        firstLine: this.#resume.line,
      });
      if (seq !== this.#seq) return;
      const settled = found.matches.filter((line) => line.byte < found.resumeByte);
      const room = LISTED_LINES - this.#lines.length;
      if (settled.length > 0 && room > 0) this.#lines = [...this.#lines, ...settled.slice(0, room)];
      this.#truncated ||= found.truncated || settled.length > room;
      this.#settledTotal += found.settledTotal;
      this.#pendingTotal = found.total - found.settledTotal;
      this.#resume = { byte: found.resumeByte, line: found.resumeLine };
      this.#scanned = true;
      this.#error = null;
    } catch (error) {
      if (seq !== this.#seq) return;
      this.#error = `Could not search the log: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#seq) {
        this.#inFlight = false;
        if (this.#dirty) void this.#scan();
      }
    }
  }
}
