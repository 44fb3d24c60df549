import { fullTime } from './format.js';

/** A time to show in full in a tooltip: an ISO string, or one with words before it ("Started …"); null: no tooltip. */
export type FullTimeTitle = string | { at: string; prefix: string } | null;

/**
 * `use:fullTimeTitle={iso}`: the element's tooltip is the full date and time, written when a
 * pointer or focus first reaches it. Messages, sessions in the list and running tasks all carry
 * a time, and the full format's first use loads the locale's date patterns (20 to 40 ms here):
 * a page opens without paying it.
 */
export function fullTimeTitle(node: HTMLElement, value: FullTimeTitle) {
  let current = value;
  const write = () => {
    if (current === null) node.removeAttribute('title');
    else
      node.setAttribute(
        'title',
        typeof current === 'string' ? fullTime(current) : `${current.prefix}${fullTime(current.at)}`,
      );
  };
  node.addEventListener('pointerenter', write);
  node.addEventListener('focusin', write);
  return {
    update(next: FullTimeTitle) {
      current = next;
      if (node.hasAttribute('title')) write();
    },
    destroy() {
      node.removeEventListener('pointerenter', write);
      node.removeEventListener('focusin', write);
    },
  };
}
