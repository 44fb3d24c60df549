// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';
import { renderMarkdownHtml } from '@shared/domain/markdown.js';
import { newMarker } from '@shared/domain/markdown-marker.js';
import Markdown from './Markdown.svelte';

afterEach(cleanup);

describe('Markdown', () => {
  // First in this file: the page's own renderer is not loaded yet.
  it('shows a reply the host rendered at once, without the page’s own Markdown renderer', () => {
    const text = 'Some *emphasis* and a list:\n\n- one\n- two\n\nA bell \u0007 here.';
    const view = render(Markdown, { text, rendered: renderMarkdownHtml(text, newMarker()) });
    // Synchronously: the page's renderer is a chunk loaded on demand, which nothing here waited for.
    expect(view.container.querySelector('em')?.textContent).toBe('emphasis');
    expect(view.container.querySelectorAll('li')).toHaveLength(2);
    expect(view.container.querySelector('[data-code="7"]')).not.toBeNull();
  });

  it('renders a reply still arriving itself (loading its renderer), even when the host sent one', async () => {
    const text = 'First paragraph.\n\n- one';
    // A streaming reply's rendering from the host would be stale by its next word: the page's own is used.
    const view = render(Markdown, { text, streaming: true, rendered: renderMarkdownHtml('Stale.', newMarker()) });
    await expect.poll(() => view.container.querySelector('li')?.textContent).toBe('one');
    expect(view.container.textContent).not.toContain('Stale');
  });

  it('repaints only the block still arriving: finished blocks keep their elements', async () => {
    const view = render(Markdown, { text: 'First paragraph.\n\n- one\n- tw', streaming: true });
    await expect.poll(() => view.container.querySelector('ul')).not.toBeNull();
    const paragraph = view.container.querySelector('p')!;
    const list = view.container.querySelector('ul')!;
    await view.rerender({ text: 'First paragraph.\n\n- one\n- two\n\nThird', streaming: true });
    expect(view.container.querySelector('p')).toBe(paragraph);
    expect(view.container.querySelector('ul')).not.toBe(list);
    expect(view.container.querySelectorAll('li')).toHaveLength(2);
    await view.rerender({ text: 'First paragraph.\n\n- one\n- two\n\nThird one.', streaming: false });
    expect(view.container.querySelector('p')).toBe(paragraph);
    expect(view.container.querySelectorAll('p')[1]!.textContent).toBe('Third one.');
    expect(view.container.querySelector('.md-caret')).toBeNull();
  });
});
