/**
 * Makes the whole page but `element` inert while a modal shows: every sibling along the
 * path from it up to <body>, and any element that appears beside that path meanwhile (a
 * banner, a new bar). Returns a function that gives back exactly what it took.
 */
export function inertOutside(element: Element): () => void {
  const made = new Set<HTMLElement>();
  const observers: MutationObserver[] = [];
  const root = element.ownerDocument.documentElement;

  const mark = (node: Node, keep: Element): void => {
    if (!(node instanceof HTMLElement) || node === keep || node.inert || node.tagName === 'SCRIPT') return;
    node.inert = true;
    made.add(node);
  };

  let child: Element = element;
  for (let parent = child.parentElement; parent && parent !== root; child = parent, parent = parent.parentElement) {
    const keep = child;
    for (const sibling of parent.children) mark(sibling, keep);
    const observer = new MutationObserver((records) => {
      for (const record of records) for (const node of record.addedNodes) mark(node, keep);
    });
    observer.observe(parent, { childList: true });
    observers.push(observer);
  }

  return () => {
    for (const observer of observers) observer.disconnect();
    for (const node of made) node.inert = false;
    made.clear();
  };
}

const FOCUSABLE = 'button:not(:disabled), [href], input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

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
