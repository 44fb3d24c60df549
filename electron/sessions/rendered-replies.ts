import type { Message } from '../../shared/schemas/message.js';
import { renderMarkdownHtml, type RenderedMarkdown } from '../../shared/domain/markdown.js';
import { newMarker } from '../../shared/domain/markdown-marker.js';

/**
 * Replies rendered per answer, the newest: a page's first screen (its first page holds 20
 * messages) and every older page it loads (40) fit. A whole transcript asked for at once renders
 * no more than these, so one request never holds the host for long; the rest go without
 * `rendered`, and a page renders those itself.
 */
export const RENDERED_PER_ANSWER = 50;
/** What the kept renderings may weigh, in characters of text and HTML (about 16 MB). */
const CACHE_CHARS = 8_000_000;

/**
 * A sample with every kind of block and span a reply uses: rendering it once compiles marked's
 * grammar (each regular expression is compiled the first time it runs), so the first page that
 * opens a session does not wait for that.
 */
const WARM_UP = [
  '# Heading',
  'Setext heading\n---',
  'A paragraph with *emphasis*, **strong**, ~~gone~~, `code`, a <b>tag</b>, https://example.com and [a link](https://example.com "t").',
  '> a quote',
  '- a list\n- [x] a task\n\n1. one\n2. two',
  '```ts\nconst x = 1;\n```',
  '    indented code',
  '| a | b |\n| - | :-: |\n| 1 | 2 |',
  '<div>html</div>',
  '![an image](https://example.com/i.png)\n\n***',
].join('\n\n');

interface Kept {
  text: string;
  rendered: RenderedMarkdown;
  chars: number;
}

/**
 * The host's Markdown for the replies it lists (issue 18: opening a big session): a page renders
 * what it is sent without loading marked first. One marker per host, never shown to the model.
 */
export class RenderedReplies {
  readonly #marker = newMarker();
  /** By message id, the one rendered longest ago first: the text it was rendered from, and the result. */
  readonly #cache = new Map<number, Kept>();
  #chars = 0;
  readonly #cacheChars: number;

  constructor(options: { cacheChars?: number } = {}) {
    this.#cacheChars = options.cacheChars ?? CACHE_CHARS;
  }

  /** Compiles marked's grammar now, off any request (see WARM_UP). */
  warmUp(): void {
    renderMarkdownHtml(WARM_UP, this.#marker);
  }

  /** `messages` (oldest first) with the newest settled replies' `rendered` filled in; other messages as they are. */
  attach(messages: Message[]): Message[] {
    let budget = RENDERED_PER_ANSWER;
    const out = [...messages];
    for (let index = out.length - 1; index >= 0 && budget > 0; index--) {
      const message = out[index]!;
      if (message.role !== 'assistant' || message.status === 'streaming') continue;
      out[index] = { ...message, rendered: this.#render(message) };
      budget--;
    }
    return out;
  }

  #render(message: Message): RenderedMarkdown {
    const cached = this.#cache.get(message.id);
    if (cached) {
      this.#forget(message.id, cached);
      if (cached.text === message.text) {
        this.#keep(message.id, cached);
        return cached.rendered;
      }
    }
    const rendered = renderMarkdownHtml(message.text, this.#marker);
    const chars = message.text.length + rendered.blocks.reduce((sum, html) => sum + html.length, 0);
    this.#keep(message.id, { text: message.text, rendered, chars });
    return rendered;
  }

  #keep(id: number, kept: Kept): void {
    this.#cache.set(id, kept);
    this.#chars += kept.chars;
    // A Map keeps its insertion order: the first entry is the one used longest ago.
    for (const [oldest, entry] of this.#cache) {
      if (this.#chars <= this.#cacheChars || oldest === id) break;
      this.#forget(oldest, entry);
    }
  }

  #forget(id: number, kept: Kept): void {
    this.#cache.delete(id);
    this.#chars -= kept.chars;
  }
}
