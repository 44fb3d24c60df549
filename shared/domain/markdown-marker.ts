/**
 * The markers the control and bidi characters of a reply's Markdown cross in (markdown.ts), kept
 * apart from the renderer so the page and the schemas can name them without loading marked.
 */

/** How a marker may look: it goes into a regular expression on the page. */
export const MARKER_PATTERN = /^[0-9a-f]{12}$/;
export const SPECIAL_OPEN = '\uFDD0';
export const SPECIAL_CLOSE = '\uFDD1';

/**
 * A marker nobody else knows: control and bidi characters survive neither marked (CR becomes LF)
 * nor the HTML parser (NUL is dropped), so they cross as `\uFDD0<marker><hex>\uFDD1` and become
 * tokens on the page. Random per host and per page, never shown to the model: a reply cannot
 * forge a token by writing the sequence itself.
 */
export function newMarker(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
}
