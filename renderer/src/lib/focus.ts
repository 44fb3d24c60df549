const FOCUSABLE =
  'button:not(:disabled), [href], input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

/** Keeps Tab and Shift+Tab cycling inside `container`. True when it moved the focus. */
export function trapTab(event: KeyboardEvent, container: HTMLElement): boolean {
  if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return false;
  const items = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((item) => !item.closest('[inert]'));
  const first = items[0];
  const last = items[items.length - 1];
  if (!first || !last) {
    event.preventDefault();
    return true;
  }
  const active = container.ownerDocument.activeElement;
  const inside = active instanceof Node && container.contains(active) && active !== container;
  if (event.shiftKey && (!inside || active === first)) {
    event.preventDefault();
    last.focus();
    return true;
  }
  if (!event.shiftKey && (!inside || active === last)) {
    event.preventDefault();
    first.focus();
    return true;
  }
  return false;
}

/**
 * Remembers where the focus came from when it entered an element (a panel), so leaving the
 * panel, or the panel closing under the focus, gives it back there.
 */
export class FocusReturn {
  #from: HTMLElement | null = null;
  #inside = false;

  /** Follows the focus in and out of `element`; returns a function that stops. */
  attach(element: HTMLElement): () => void {
    const onFocusin = (event: FocusEvent) => {
      this.#inside = true;
      const from = event.relatedTarget;
      if (from instanceof HTMLElement && !element.contains(from)) this.#from = from;
    };
    const onFocusout = (event: FocusEvent) => {
      // No related target: the focus went nowhere (a click on plain text, the element going away).
      const to = event.relatedTarget;
      if (to instanceof Node && !element.contains(to)) this.forget();
    };
    element.addEventListener('focusin', onFocusin);
    element.addEventListener('focusout', onFocusout);
    return () => {
      element.removeEventListener('focusin', onFocusin);
      element.removeEventListener('focusout', onFocusout);
    };
  }

  /** The focus was inside and is now nowhere: the element holding it went away or was disabled. */
  lostFromInside(document: Document): boolean {
    const active = document.activeElement;
    return this.#inside && (active === null || active === document.body);
  }

  /** Gives the focus back where it came from, or to `fallback` when that is gone. */
  giveBack(fallback?: () => void): void {
    const target = this.#from;
    this.forget();
    if (target?.isConnected && !target.closest('[inert]')) target.focus();
    else fallback?.();
  }

  forget(): void {
    this.#from = null;
    this.#inside = false;
  }
}

/** The element that really has the focus: inside shadow roots too, not their host. */
export function deepActiveElement(document: Document): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}
