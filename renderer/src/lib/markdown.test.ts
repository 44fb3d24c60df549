// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderSource } from './markdown-source.js';
import { renderHtmlBlock } from './markdown.js';
import { renderMarkdownHtml } from '@shared/domain/markdown.js';
import { newMarker } from '@shared/domain/markdown-marker.js';
import { loadHighlighter } from './highlight.js';

function html(text: string): HTMLElement {
  const root = document.createElement('div');
  root.append(renderMarkdown(text));
  return root;
}

describe('rendering the model’s Markdown', () => {
  it('formats code, lists, tables, quotes and headings', () => {
    const root = html(
      '# Title\n\nSome `inline` code and **bold**.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```ts\nconst x = 1;\n```',
    );
    expect(root.querySelector('h1')?.textContent).toBe('Title');
    expect(root.querySelector('p code')?.textContent).toBe('inline');
    expect(root.querySelectorAll('ul li')).toHaveLength(2);
    expect(root.querySelector('ol li')?.textContent).toBe('first');
    expect(root.querySelector('blockquote')?.textContent?.trim()).toBe('quoted');
    expect(root.querySelectorAll('td')).toHaveLength(2);
    expect(root.querySelector('pre code')?.className).toBe('language-ts');
    expect(root.querySelector('pre code')?.textContent).toBe('const x = 1;\n');
  });

  it('runs no script and loads no image: raw HTML shows as the text the model wrote', () => {
    const root = html(
      'Look: <img src=x onerror="alert(1)"> and <script>alert(2)</script>\n\n<div onclick="x()">block</div>',
    );
    expect(root.querySelector('img, script, div')).toBeNull();
    expect(root.querySelectorAll('[onerror], [onclick]')).toHaveLength(0);
    expect(root.textContent).toContain('<img src=x onerror="alert(1)">');
    expect(root.textContent).toContain('<script>alert(2)</script>');
  });

  it('turns Markdown images into links, never fetches', () => {
    const root = html('![a cat](https://example.com/cat.png?secret=1) and ![x](javascript:alert(1))');
    expect(root.querySelector('img')).toBeNull();
    const link = root.querySelector('a')!;
    expect(link.getAttribute('href')).toBe('https://example.com/cat.png?secret=1');
    expect(link.textContent).toBe('image: a cat');
    expect(root.querySelectorAll('a')).toHaveLength(1);
  });

  it('keeps http(s) and mailto links, opening outside with no opener; other schemes are text', () => {
    const root = html(
      '[ok](https://example.com) [mail](mailto:a@b.c) [js](javascript:alert(1)) [js2](JaVaScRiPt:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [vb](vbscript:x) [rel](/api/sessions)\n\n<a href="https://evil.example">raw</a>',
    );
    const links = [...root.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com', 'mailto:a@b.c']);
    for (const link of links) {
      expect(link.getAttribute('target')).toBe('_blank');
      expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    }
    expect(root.textContent).toContain('js2');
    expect(root.textContent).toContain('<a href="https://evil.example">raw</a>');
  });

  it('keeps HTML inside code as code text', () => {
    const root = html(
      '`<b onmouseover=x>hi</b>`\n\n```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```',
    );
    expect(root.querySelector('b, script, img')).toBeNull();
    expect(root.querySelector('p code')?.textContent).toBe('<b onmouseover=x>hi</b>');
    expect(root.querySelector('pre code')?.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('allows no style, class or data attributes from the model', () => {
    const root = html('<span style="color:red" class="x" data-x="1">t</span>\n\n```"><img src=x>\ncode\n```');
    expect(root.querySelectorAll('[style], [data-x]')).toHaveLength(0);
    expect(root.querySelector('img')).toBeNull();
    for (const element of root.querySelectorAll('[class]'))
      expect(element.className).toMatch(/^(language-[\w+#.-]+|escape-token)$/);
  });

  it('shows control and bidi characters as tokens, in prose, code and link text', () => {
    const root = html(
      'a\u202Eb c\u0000d e\u001b[31mf\rg\n\n`x\u2066y`\n\n```\nz\u0007\n```\n\n[l\u200Fk](https://example.com)',
    );
    const codes = [...root.querySelectorAll('[data-testid="escape-token"]')].map((chip) =>
      Number(chip.getAttribute('data-code')),
    );
    expect(codes).toEqual([0x202e, 0x00, 0x1b, 0x0d, 0x2066, 0x07, 0x200f]);
    expect(root.querySelector('[data-code="27"]')?.textContent).toBe('⟨ESC⟩');
    expect(root.querySelector('[data-code="27"]')?.getAttribute('aria-label')).toBe('escape, U+001B');
    expect(root.textContent).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202a-\u202e\u2066-\u2069\u200f\uFDD0\uFDD1]/);
  });

  it('makes character references into the same tokens, and a forged marker shows as itself', () => {
    const root = html('x&#x202E;y &#27; &#xFDD0;1b&#xFDD1;');
    const codes = [...root.querySelectorAll('[data-testid="escape-token"]')].map((chip) =>
      Number(chip.getAttribute('data-code')),
    );
    expect(codes).toEqual([0x202e, 0x1b, 0xfdd0, 0xfdd1]);
  });

  it('cuts a reply into blocks, so a streaming one changes only its last', () => {
    const blocks = (text: string) => renderSource(text).blocks;
    const first = blocks('Para one.\n\n- a\n- b\n\n```ts\nlet');
    const later = blocks('Para one.\n\n- a\n- b\n\n```ts\nlet y = 2;\n```');
    expect(first).toHaveLength(3);
    expect(later.slice(0, 2)).toEqual(first.slice(0, 2));
    // An unclosed fence is a code block so far.
    expect(html('```ts\nlet').querySelector('pre code')?.textContent).toBe('let\n');
  });

  it('names the languages of its code blocks', () => {
    expect(renderSource('```ts\na\n```\n\n```Python extra\nb\n```\n\n```\nc\n```').languages).toEqual(['ts', 'python']);
  });

  it('highlights known languages with classes (no inline style), and leaves others plain', async () => {
    const highlight = await loadHighlighter(['ts']);
    // Shiki gives up on a line after 500 ms of wall time and leaves its rest plain. The grammar's
    // patterns are compiled on first use, which on a busy machine can take that long: compiled first.
    highlight('const a = 1;', 'ts');
    const root = document.createElement('div');
    root.append(renderMarkdown('```ts\nconst a = "\u001b";\n```\n\n```brainfuck\n+++\n```', highlight));
    const [ts, other] = [...root.querySelectorAll('pre code')];
    expect(ts!.querySelectorAll('span[class^="hl-"]').length).toBeGreaterThan(2);
    expect(ts!.querySelector('.hl-token-keyword')?.textContent).toBe('const');
    expect(ts!.querySelector('[data-code="27"]')).not.toBeNull();
    expect(root.querySelectorAll('[style]')).toHaveLength(0);
    expect(other!.children).toHaveLength(0);
    expect(other!.textContent).toBe('+++\n');
  });

  it('shows what the host rendered with its own marker as the page would, and decodes no other marker', () => {
    const text = 'a\u001b b \u202e c `code\u0007`';
    const page = html(text);
    const marker = newMarker();
    const host = renderMarkdownHtml(text, marker);
    const root = document.createElement('div');
    for (const block of host.blocks) root.append(renderHtmlBlock(block, host.marker, null));
    expect(root.innerHTML).toBe(page.innerHTML);
    expect(
      [...root.querySelectorAll('[data-testid="escape-token"]')].map((chip) => chip.getAttribute('data-code')),
    ).toEqual(['27', '8238', '7']);
    // The same HTML read with another marker: the sequences are not tokens of ours, and show as what they are.
    const other = document.createElement('div');
    for (const block of host.blocks) other.append(renderHtmlBlock(block, newMarker(), null));
    expect(other.textContent).toContain(marker);
    expect(other.querySelectorAll('[data-code="27"]')).toHaveLength(0);
    // Nor does a marker that is not one: it never reaches a regular expression.
    const bogus = document.createElement('div');
    for (const block of host.blocks) bogus.append(renderHtmlBlock(block, '.*', null));
    expect(bogus.querySelectorAll('[data-code="27"]')).toHaveLength(0);
  });

  it('parses again only the blocks it has not rendered before, given the last rendering', () => {
    const known = new Map<string, string>();
    renderSource('Para one.\n\n- a\n- b', known);
    expect([...known.keys()]).toEqual(['Para one.', '- a\n- b']);
    // A block already rendered is taken from `known`, not parsed again (a marked-up entry shows it).
    known.set('Para one.', '<p>from before</p>');
    const next = renderSource('Para one.\n\n- a\n- b\n- c', known);
    expect(next.blocks).toEqual(['<p>from before</p>', '<ul>\n<li>a</li>\n<li>b</li>\n<li>c</li>\n</ul>\n']);
    // And `known` now holds this rendering's blocks only.
    expect([...known.keys()]).toEqual(['Para one.', '- a\n- b\n- c']);
  });
});
