/**
 * Where the keyboard focus goes as the tasks panel opens, shows a task, goes back and closes,
 * so it never drops to the page body: into the panel when it opens, onto "back" when a task
 * opens, onto that task's card when going back, and back where it came from when the panel
 * closes (the composer when that place is gone).
 */
export interface PanelPlace {
  open: boolean;
  taskId: string | undefined;
}

export const TASK_TERMINAL = '[data-testid="task-terminal"]';
const PANEL = '[data-testid="tasks-panel"]';

export class PanelFocus {
  #returnTo: HTMLElement | null = null;
  readonly #root: () => HTMLElement | undefined;
  readonly #fallback: () => void;

  constructor(root: () => HTMLElement | undefined, fallback: () => void) {
    this.#root = root;
    this.#fallback = fallback;
  }

  /**
   * Keeps the focus in the panel when what held it goes away under it (a stopped task's card
   * moving to Finished, a row removed): it moves to the same task's new place, else the heading.
   * Returns a function that stops watching.
   */
  watch(): () => void {
    const root = this.#root();
    if (!root) return () => undefined;
    let last: HTMLElement | null = null;
    let lastTask: string | null = null;
    const onFocusin = (event: FocusEvent) => {
      const target = event.target instanceof HTMLElement ? event.target : null;
      last = target?.closest(PANEL) ? target : null;
      lastTask = target?.closest<HTMLElement>('[data-task-id]')?.dataset.taskId ?? null;
    };
    const observer = new MutationObserver(() => {
      const document = root.ownerDocument;
      if (!last || last.isConnected || (document.activeElement && document.activeElement !== document.body)) return;
      const panel = root.querySelector<HTMLElement>(PANEL);
      last = null;
      if (!panel) return;
      const place = lastTask ? panel.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(lastTask)}"]`) : null;
      const control = place?.querySelector<HTMLElement>('button:not(:disabled), [href]');
      if (control) control.focus();
      else focusHeading(panel);
    });
    // A press elsewhere (on transcript text, which takes no focus) is the person leaving the panel:
    // a card re-rendering afterwards must not pull the focus back into it.
    const onPointerdown = (event: PointerEvent) => {
      if (!(event.target instanceof Element && event.target.closest(PANEL))) last = null;
    };
    root.addEventListener('focusin', onFocusin);
    root.ownerDocument.addEventListener('pointerdown', onPointerdown, true);
    observer.observe(root, { childList: true, subtree: true });
    return () => {
      root.removeEventListener('focusin', onFocusin);
      root.ownerDocument.removeEventListener('pointerdown', onPointerdown, true);
      observer.disconnect();
    };
  }

  /** Before the page shows `next`: remembers where the focus is when the panel is about to open. */
  leaving(previous: PanelPlace, next: PanelPlace, active: Element | null): void {
    if (!previous.open && next.open && active instanceof HTMLElement && !active.closest(PANEL)) {
      this.#returnTo = active === active.ownerDocument.body ? null : active;
    }
  }

  /** After the page shows `next`: puts the focus where that place wants it. */
  arrived(previous: PanelPlace, next: PanelPlace): void {
    const root = this.#root();
    if (!root) return;
    const panel = root.querySelector<HTMLElement>(PANEL);
    if (!next.open) {
      if (!previous.open) return;
      const target = this.#returnTo;
      this.#returnTo = null;
      if (target?.isConnected) target.focus();
      else this.#fallback();
      return;
    }
    if (!panel) return;
    if (next.taskId !== undefined && next.taskId !== previous.taskId) {
      panel.querySelector<HTMLElement>('[data-testid="task-view-back"]')?.focus();
      return;
    }
    if (next.taskId === undefined && previous.open && previous.taskId !== undefined) {
      const card = panel.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(previous.taskId)}"]`);
      const control = card?.querySelector<HTMLElement>('button, [href], [tabindex]:not([tabindex="-1"])');
      if (control) return control.focus();
    }
    if (!previous.open || (next.taskId === undefined && previous.taskId !== undefined)) focusHeading(panel);
  }
}

/** The panel's heading takes the focus (not a button: Enter there must not act). */
function focusHeading(panel: HTMLElement): void {
  const heading = panel.querySelector<HTMLElement>('h2');
  if (!heading) return panel.focus();
  heading.tabIndex = -1;
  heading.focus();
}
