import DOMPurify from 'dompurify';
import { characterName, commandTokens } from '@shared/domain/commands.js';
import {
  MARKER_PATTERN,
  newMarker,
  SPECIAL_CLOSE as CLOSE,
  SPECIAL_OPEN as OPEN,
} from '@shared/domain/markdown-marker.js';

/**
 * The model's replies made safe: the HTML that marked made of them (shared/domain/markdown.ts, on
 * the host for the replies it lists, on the page for one still arriving) goes through DOMPurify's
 * allow-list of tags and attributes, and a last pass over the DOM makes the links and the text honest.
 * This module never loads marked: a page renders the replies the host sent before it has any.
 *
 * - No raw HTML from the model, no images (see shared/domain/markdown.ts).
 * - Links: http(s) and mailto only, opening outside the page (`target="_blank"`, no opener, no
 *   referrer); anything else is plain text.
 * - Control and bidi characters show as tokens, as `CommandText`'s `prose` mode shows them.
 */

/** The code block languages offered to the highlighter (see highlight.ts). */
export interface Highlighter {
  /** Lines of tokens with their class names, or null when the language is not loaded (plain text then). */
  (code: string, language: string): { text: string; className: string }[][] | null;
}

/** The marker of the replies this page renders itself; the host's comes with the replies it rendered. */
export const PAGE_MARKER = newMarker();

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'a',
  'input',
];
const ALLOWED_ATTR = ['href', 'align', 'start', 'class', 'type', 'checked', 'disabled'];
const SAFE_URL = /^(?:https?:|mailto:)/i;
const LANGUAGE_CLASS = /^language-[\w+#.-]{1,32}$/;

/** What becomes a token in the DOM: prose's characters, and the two markers wherever they did not come from us. */
const RAW_SPECIAL = /[\uFDD0\uFDD1]/;
const encodedPatterns = new Map<string, RegExp>();

/** The encoded characters of `marker`'s rendering. */
function encodedPattern(marker: string): RegExp {
  let pattern = encodedPatterns.get(marker);
  if (!pattern) {
    // A marker that is not one (never from our host) decodes nothing: its sequences show as what they are.
    pattern = MARKER_PATTERN.test(marker) ? new RegExp(`${OPEN}${marker}([0-9a-f]{1,6})${CLOSE}`, 'g') : /(?!)/g;
    encodedPatterns.set(marker, pattern);
  }
  return pattern;
}

/** The text as the model wrote it, markers turned back into their characters (for the highlighter). */
function decodeSpecials(text: string, marker: string): string {
  return text.replace(encodedPattern(marker), (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}

/** One block's HTML (from shared/domain/markdown.ts, rendered with `marker`) as a safe fragment. */
export function renderHtmlBlock(html: string, marker: string, highlight: Highlighter | null = null): DocumentFragment {
  const fragment = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: SAFE_URL,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const element of fragment.querySelectorAll('*')) tidyElement(element);
  for (const code of fragment.querySelectorAll('pre > code')) highlightBlock(code, highlight, marker);
  showSpecials(fragment, marker);
  return fragment;
}

function tidyElement(element: Element): void {
  const tag = element.tagName.toLowerCase();
  const className = element.getAttribute('class');
  if (className !== null && !(tag === 'code' && LANGUAGE_CLASS.test(className))) element.removeAttribute('class');
  if (tag === 'a') {
    const href = element.getAttribute('href') ?? '';
    if (!isSafeUrl(href)) {
      element.replaceWith(...element.childNodes);
      return;
    }
    element.setAttribute('target', '_blank');
    element.setAttribute('rel', 'noopener noreferrer');
  }
  // Only a task list's ticked or empty box, never a field the page would read.
  if (tag === 'input') {
    if (element.getAttribute('type') !== 'checkbox') element.remove();
    else element.setAttribute('disabled', '');
  }
}

function isSafeUrl(href: string): boolean {
  if (!SAFE_URL.test(href) || href.includes(OPEN) || href.includes(CLOSE)) return false;
  try {
    return ['http:', 'https:', 'mailto:'].includes(new URL(href).protocol);
  } catch {
    return false;
  }
}

function highlightBlock(code: Element, highlight: Highlighter | null, marker: string): void {
  const language = /^language-(.+)$/.exec(code.getAttribute('class') ?? '')?.[1]?.toLowerCase();
  const lines = highlight && language ? highlight(decodeSpecials(code.textContent ?? '', marker), language) : null;
  if (!lines) return;
  const document = code.ownerDocument;
  code.replaceChildren();
  lines.forEach((line, index) => {
    if (index > 0) code.append('\n');
    for (const part of line) {
      const span = document.createElement('span');
      span.className = part.className;
      // Raw characters here become tokens in showSpecials, as everywhere else.
      span.textContent = part.text;
      code.append(span);
    }
  });
}

/** Every text node: encoded markers and raw control, bidi or marker characters become tokens. */
function showSpecials(root: DocumentFragment, marker: string): void {
  const document = root.ownerDocument;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  for (const node of nodes) {
    const text = node.data;
    if (!text.includes(OPEN) && !RAW_SPECIAL.test(text) && commandTokens(text, 'prose').every((t) => 'text' in t))
      continue;
    const parts: Node[] = [];
    for (const token of commandTokens(decodeSpecials(text, marker), 'prose')) {
      if ('text' in token) {
        // Markers that were not ours (a reply wrote them as entities) are shown as what they are.
        for (const piece of token.text.split(/([\uFDD0\uFDD1])/)) {
          if (piece === OPEN || piece === CLOSE) parts.push(tokenChip(document, piece.charCodeAt(0)));
          else if (piece !== '') parts.push(document.createTextNode(piece));
        }
      } else parts.push(tokenChip(document, token.code, token.escape));
    }
    node.replaceWith(...parts);
  }
}

/** The same chip as CommandText's: `⟨ESC⟩`, named for tooltips and screen readers. */
function tokenChip(document: Document, code: number, escape?: string): HTMLElement {
  const chip = document.createElement('span');
  chip.className = 'escape-token';
  chip.setAttribute('role', 'img');
  chip.title = characterName(code);
  chip.setAttribute('aria-label', characterName(code));
  chip.dataset.testid = 'escape-token';
  chip.dataset.code = String(code);
  chip.textContent = `⟨${escape ?? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`}⟩`;
  return chip;
}
