/** The narrowest the tasks panel may be. */
export const PANEL_MIN_WIDTH = 320;
export const PANEL_DEFAULT_WIDTH = 420;
const WIDTH_KEY = 'drover.tasksPanel.width';

/** Where the width is kept between runs (localStorage in the app). */
export interface WidthStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The tasks panel's width: dragged by its handle, at least PANEL_MIN_WIDTH, kept in the store. */
export class TasksPanelState {
  readonly #store: WidthStore | null;
  #width = $state(PANEL_DEFAULT_WIDTH);

  constructor(store: WidthStore | null) {
    this.#store = store;
    const stored = Number(readSafely(store));
    if (Number.isFinite(stored) && stored > 0) this.#width = Math.max(PANEL_MIN_WIDTH, Math.round(stored));
  }

  get width(): number {
    return this.#width;
  }

  /** Sets the width (clamped to [PANEL_MIN_WIDTH, max]) without storing it yet. */
  resize(width: number, max = Number.POSITIVE_INFINITY): void {
    this.#width = Math.round(Math.max(PANEL_MIN_WIDTH, Math.min(Math.max(PANEL_MIN_WIDTH, max), width)));
  }

  /** Keeps the current width for the next run. */
  commit(): void {
    try {
      this.#store?.setItem(WIDTH_KEY, String(this.#width));
    } catch {
      // A full or refused store only loses the width for next time.
    }
  }
}

function readSafely(store: WidthStore | null): string | null {
  try {
    return store?.getItem(WIDTH_KEY) ?? null;
  } catch {
    return null;
  }
}
