import { renderMarkdownHtml, type RenderedMarkdown } from '@shared/domain/markdown.js';
import { PAGE_MARKER, renderHtmlBlock, type Highlighter } from './markdown.js';

/**
 * The page's own Markdown renderer (marked): for a reply still arriving, or one the host did not
 * render. Loaded on demand (Markdown.svelte imports it when it first needs it), never before the
 * first screen: marked's grammar is about 50 ms of a cold page's time (issue 18). `known`: see
 * renderMarkdownHtml (a streaming reply parses only the block still arriving).
 */
export function renderSource(text: string, known?: Map<string, string>): RenderedMarkdown {
  return renderMarkdownHtml(text, PAGE_MARKER, known);
}

/** The whole reply at once, as the page shows it. */
export function renderMarkdown(text: string, highlight: Highlighter | null = null): DocumentFragment {
  const rendered = renderSource(text);
  const fragment = document.createDocumentFragment();
  for (const block of rendered.blocks) fragment.append(renderHtmlBlock(block, rendered.marker, highlight));
  return fragment;
}
