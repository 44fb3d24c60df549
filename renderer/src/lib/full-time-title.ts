import { fullTime } from './format.js';

/**
 * `use:fullTimeTitle={iso}`: the element's tooltip is the full date and time, written when a
 * pointer or focus first reaches it. The transcript has a time on every message, and the full
 * format's first use loads the locale's date patterns (~20 ms): a session opens without paying it.
 */
export function fullTimeTitle(node: HTMLElement, iso: string) {
  let current = iso;
  const write = () => node.setAttribute('title', fullTime(current));
  node.addEventListener('pointerenter', write);
  node.addEventListener('focusin', write);
  return {
    update(next: string) {
      current = next;
      if (node.hasAttribute('title')) write();
    },
    destroy() {
      node.removeEventListener('pointerenter', write);
      node.removeEventListener('focusin', write);
    },
  };
}
