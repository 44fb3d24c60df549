import type { Message } from '../../shared/schemas/message.js';
import { renderMarkdownHtml, type RenderedMarkdown } from '../../shared/domain/markdown.js';
import { newMarker } from '../../shared/domain/markdown-marker.js';

/** Replies kept rendered: a page's first screen and the pages above it, many times over. */
const CACHED_REPLIES = 2_000;

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

/**
 * The host's Markdown for the replies it lists (issue 18: opening a big session): a page renders
 * what it is sent without loading marked first. One marker per host, never shown to the model.
 */
export class RenderedReplies {
  readonly #marker = newMarker();
  /** By message id: the text it was rendered from, and the result. */
  readonly #cache = new Map<number, { text: string; rendered: RenderedMarkdown }>();

  /** Compiles marked's grammar now, off any request (see WARM_UP). */
  warmUp(): void {
    renderMarkdownHtml(WARM_UP, this.#marker);
  }

  /** `messages` with each settled reply's `rendered` filled in; other messages as they are. */
  attach(messages: Message[]): Message[] {
    return messages.map((message) =>
      message.role === 'assistant' && message.status !== 'streaming'
        ? { ...message, rendered: this.#render(message) }
        : message,
    );
  }

  #render(message: Message): RenderedMarkdown {
    const cached = this.#cache.get(message.id);
    if (cached?.text === message.text) return cached.rendered;
    const rendered = renderMarkdownHtml(message.text, this.#marker);
    this.#cache.delete(message.id);
    this.#cache.set(message.id, { text: message.text, rendered });
    // A Map keeps its insertion order: the first key is the one rendered longest ago.
    if (this.#cache.size > CACHED_REPLIES) this.#cache.delete(this.#cache.keys().next().value!);
    return rendered;
  }
}
