import { Marked, type Tokens } from 'marked';
import { commandTokens } from './commands.js';
import { MARKER_PATTERN, SPECIAL_CLOSE, SPECIAL_OPEN } from './markdown-marker.js';

/**
 * The model's replies, Markdown to HTML: the half of rendering that needs no page. The host runs
 * it for the replies it lists (issue 18: a page opening a session then needs no Markdown parser
 * before its first screen, and marked's grammar costs a cold page about 50 ms to build and
 * compile); a page runs it for a reply still arriving. Either way the HTML is untrusted: the page
 * sanitises it against an allow-list (renderer/src/lib/markdown.ts) before it shows any.
 *
 * - No raw HTML from the model: marked's `html` tokens come out as the text the model wrote.
 * - No images: one would be fetched from a server the model chose the moment the reply shows,
 *   telling it whatever the model put in its address. An http(s) image becomes a link instead.
 */

/**
 * A reply cut into its top-level blocks, each block's HTML on its own (a streaming reply
 * re-renders only its last), with the languages of its code blocks.
 */
export interface RenderedMarkdown {
  /** The marker its control and bidi characters cross in (markdown-marker.ts). */
  marker: string;
  /** Each top-level block's HTML, in order. */
  blocks: string[];
  /** Code block languages (fence info words, lower-cased), for the highlighter. */
  languages: string[];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SAFE_URL = /^(?:https?:|mailto:)/i;

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

function encodeSpecials(text: string, marker: string): string {
  const encode = (code: number) => `${SPECIAL_OPEN}${marker}${code.toString(16)}${SPECIAL_CLOSE}`;
  let out = '';
  for (const token of commandTokens(text, 'prose')) {
    if ('text' in token) out += token.text.replace(/[\uFDD0\uFDD1]/g, (c) => encode(c.charCodeAt(0)));
    else out += encode(token.code);
  }
  return out;
}

/**
 * `text` (a reply, as the model wrote it) as HTML blocks; `marker` from newMarker
 * (markdown-marker.ts). `known`, when given, holds the HTML of an earlier rendering's blocks by
 * their source: a block found there is not parsed again (a streaming reply changes only its last),
 * and it is left holding this rendering's blocks.
 */
export function renderMarkdownHtml(text: string, marker: string, known?: Map<string, string>): RenderedMarkdown {
  if (!MARKER_PATTERN.test(marker)) throw new Error('a Markdown marker is 12 hexadecimal digits');
  const tokens = marked.lexer(encodeSpecials(text, marker));
  const sources = tokens.filter((token) => token.type !== 'space').map((token) => token.raw);
  const blocks = sources.map((source) => known?.get(source) ?? marked.parse(source, { async: false }));
  if (known) {
    known.clear();
    sources.forEach((source, index) => known.set(source, blocks[index]!));
  }
  const languages = new Set<string>();
  marked.walkTokens(tokens, (token) => {
    if (token.type === 'code' && token.lang) languages.add(token.lang.split(/\s/)[0]!.toLowerCase());
  });
  return { marker, blocks, languages: [...languages] };
}
