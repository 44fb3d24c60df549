import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';
import { characterName, commandTokens } from '@shared/domain/commands.js';

/**
 * The model's replies as Markdown, made safe: marked turns the text into HTML, DOMPurify keeps an
 * allow-list of tags and attributes, and a last pass over the DOM makes the links and the text honest.
 *
 * - No raw HTML from the model: marked's `html` tokens are shown as the text the model wrote.
 * - No images: an image would be fetched from a server the model chose, telling it that (and
 *   whatever the model put in its address) the moment the reply shows. It becomes a link instead.
 * - Links: http(s) and mailto only, opening outside the page (`target="_blank"`, no opener, no
 *   referrer); anything else is plain text.
 * - Control and bidi characters show as tokens, as `CommandText`'s `prose` mode shows them.
 */

/** The code block languages offered to the highlighter (see highlight.ts). */
export interface Highlighter {
  /** Lines of tokens with their class names, or null when the language is not loaded (plain text then). */
  (code: string, language: string): { text: string; className: string }[][] | null;
}

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

/**
 * Control and bidi characters survive neither marked (CR becomes LF) nor the HTML parser (NUL is
 * dropped), so they cross as `\uFDD0<nonce><hex>\uFDD1` and turn into tokens at the end. The nonce
 * is random per page, so a reply cannot forge a token by writing the sequence itself.
 */
const NONCE = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
const OPEN = '\uFDD0';
const CLOSE = '\uFDD1';
const ENCODED = new RegExp(`${OPEN}${NONCE}([0-9a-f]{1,6})${CLOSE}`, 'g');
/** What becomes a token in the DOM: prose's characters, and the two markers wherever they did not come from us. */
const RAW_SPECIAL = /[\uFDD0\uFDD1]/;

function encodeSpecials(text: string): string {
  let out = '';
  for (const token of commandTokens(text, 'prose')) {
    if ('text' in token) out += token.text.replace(/[\uFDD0\uFDD1]/g, (c) => encodeCode(c.charCodeAt(0)));
    else out += encodeCode(token.code);
  }
  return out;
}

function encodeCode(code: number): string {
  return `${OPEN}${NONCE}${code.toString(16)}${CLOSE}`;
}

/** The text as the model wrote it, markers turned back into their characters (for the highlighter). */
function decodeSpecials(text: string): string {
  return text.replace(ENCODED, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const marked = new Marked({
  gfm: true,
  // A single line break stays a line break, as in the plain text the replies used to be.
  breaks: true,
  renderer: {
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    image: ({ href, text }: Tokens.Image) =>
      SAFE_URL.test(href) ? `<a href="${escapeHtml(href)}">image: ${escapeHtml(text)}</a>` : escapeHtml(text),
  },
});

/** The reply cut into its top-level blocks, each rendered on its own (a streaming reply re-renders its last). */
export function markdownBlocks(text: string): string[] {
  return marked
    .lexer(encodeSpecials(text))
    .filter((token) => token.type !== 'space')
    .map((token) => token.raw);
}

/** Which code block languages a reply uses (fence info words, lower-cased). */
export function codeLanguages(text: string): string[] {
  const languages = new Set<string>();
  marked.walkTokens(marked.lexer(text), (token) => {
    if (token.type === 'code' && token.lang) languages.add(token.lang.split(/\s/)[0]!.toLowerCase());
  });
  return [...languages];
}

/** One block (from `markdownBlocks`) as a safe fragment. */
export function renderBlock(block: string, highlight: Highlighter | null = null): DocumentFragment {
  const html = marked.parse(block, { async: false });
  const fragment = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: SAFE_URL,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const element of fragment.querySelectorAll('*')) tidyElement(element);
  for (const code of fragment.querySelectorAll('pre > code')) highlightBlock(code, highlight);
  showSpecials(fragment);
  return fragment;
}

/** The whole reply at once (tests, and any reply that is not streaming). */
export function renderMarkdown(text: string, highlight: Highlighter | null = null): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const block of markdownBlocks(text)) fragment.append(renderBlock(block, highlight));
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

function highlightBlock(code: Element, highlight: Highlighter | null): void {
  const language = /^language-(.+)$/.exec(code.getAttribute('class') ?? '')?.[1]?.toLowerCase();
  const lines = highlight && language ? highlight(decodeSpecials(code.textContent ?? ''), language) : null;
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
function showSpecials(root: DocumentFragment): void {
  const document = root.ownerDocument;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  for (const node of nodes) {
    const text = node.data;
    if (!text.includes(OPEN) && !RAW_SPECIAL.test(text) && commandTokens(text, 'prose').every((t) => 'text' in t))
      continue;
    const parts: Node[] = [];
    for (const token of commandTokens(decodeSpecials(text), 'prose')) {
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
