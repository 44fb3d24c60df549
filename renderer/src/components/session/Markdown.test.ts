// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';
import Markdown from './Markdown.svelte';

afterEach(cleanup);

describe('Markdown', () => {
  it('repaints only the block still arriving: finished blocks keep their elements', async () => {
    const view = render(Markdown, { text: 'First paragraph.\n\n- one\n- tw', streaming: true });
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
