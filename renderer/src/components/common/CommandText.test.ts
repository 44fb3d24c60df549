// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';
import { characterName, commandTokens, visibleCommand } from '@shared/domain/commands.js';
import CommandText from './CommandText.svelte';

const ESC = '\u001b';
const RLO = '\u202e';

afterEach(cleanup);

/** Renders into a <pre> as the views do; answers the tokens and the plain text around them. */
function shown(text: string, props: Record<string, unknown> = {}) {
  const { container } = render(CommandText, { text, ...props });
  const tokens = [...container.querySelectorAll<HTMLElement>('[data-testid="escape-token"]')];
  const copy = container.cloneNode(true) as HTMLElement;
  for (const token of copy.querySelectorAll('[data-testid="escape-token"]')) token.remove();
  return { container, tokens, plain: copy.textContent ?? '' };
}

describe('commandTokens', () => {
  it('makes a real ESC a token and leaves the typed text \\x1b as text', () => {
    expect(commandTokens(`printf '\\x1b[1m' ${ESC}[0m`)).toEqual([
      { text: "printf '\\x1b[1m' " },
      { escape: 'ESC', code: 0x1b },
      { text: '[0m' },
    ]);
  });

  it('makes a real newline a token and leaves the typed text \\n as text', () => {
    expect(commandTokens('echo a\\nb\necho c')).toEqual([
      { text: 'echo a\\nb' },
      { escape: 'LF', code: 0x0a },
      { text: 'echo c' },
    ]);
    // The old escaped form could not tell them apart.
    expect(visibleCommand('echo a\\n')).toBe(visibleCommand('echo a\n'));
  });

  it('names ASCII controls and writes everything else as its code point', () => {
    const tokens = commandTokens(`\0\t\r\x7f${RLO}é`).map((token) => ('escape' in token ? token.escape : token.text));
    expect(tokens).toEqual(['NUL', 'TAB', 'CR', 'DEL', 'U+202E', 'U+00E9']);
    expect(characterName(0x202e)).toBe('right-to-left override, U+202E');
    expect(characterName(0x1b)).toBe('escape, U+001B');
  });

  it('gives back the input when the parts are joined', () => {
    const input = `a${ESC}b\n${RLO}c\u200d😀 ⟨ESC⟩`;
    for (const mode of ['command', 'inline'] as const) {
      const joined = commandTokens(input, mode)
        .map((token) => ('text' in token ? token.text : String.fromCodePoint(token.code)))
        .join('');
      expect(joined).toBe(input);
    }
  });

  it('keeps the layout of text: LF, CR LF and TAB stay, a lone CR and bidi controls do not', () => {
    expect(commandTokens(`one\r\ntwo\tthree\rfour ${RLO}x`, 'text')).toEqual([
      { text: 'one\ntwo\tthree' },
      { escape: 'CR', code: 0x0d },
      { text: 'four ' },
      { escape: 'U+202E', code: 0x202e },
      { text: 'x' },
    ]);
  });

  it('leaves printable Unicode as it is outside commands, but never the token brackets or odd spaces', () => {
    expect(commandTokens('café 😀', 'inline')).toEqual([{ text: 'café 😀' }]);
    expect(commandTokens('⟨ESC⟩\u00a0', 'inline').filter((token) => 'escape' in token)).toHaveLength(3);
    expect(commandTokens('naïve 3\u202f PM', 'prose')).toEqual([{ text: 'naïve 3\u202f PM' }]);
    expect(commandTokens(`a${RLO}b${ESC}`, 'prose').filter((token) => 'escape' in token)).toHaveLength(2);
  });
});

describe('CommandText', () => {
  it('shows a real ESC as a named token, distinct from the literal \\x1b beside it', () => {
    const { tokens, plain } = shown(`printf '\\x1b[31m' ${ESC}[0m`);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.textContent).toBe('⟨ESC⟩');
    expect(tokens[0]!.dataset.code).toBe('27');
    expect(tokens[0]!.getAttribute('title')).toBe('escape, U+001B');
    expect(tokens[0]!.getAttribute('aria-label')).toBe('escape, U+001B');
    expect(tokens[0]!.getAttribute('role')).toBe('img');
    expect(plain).toBe("printf '\\x1b[31m' [0m");
  });

  it('shows a real newline as ⟨LF⟩ and a typed \\n as text; in the dialog the token also breaks the line', () => {
    expect(shown('echo a\\n\necho b').tokens.map((token) => token.textContent)).toEqual(['⟨LF⟩']);
    expect(shown('echo a\\n\necho b').plain).toBe('echo a\\necho b');
    const broken = shown('echo a\\n\necho b', { breakAfterNewline: true });
    expect(broken.plain).toBe('echo a\\n\necho b');
    expect(broken.container.textContent).toBe('echo a\\n⟨LF⟩\necho b');
  });

  it('never puts a bidi control into the page: an RLO is a token, so exe.jpg cannot read as gpj.exe', () => {
    const { container, tokens } = shown(`echo ${RLO}gpj.exe`);
    expect(tokens.map((token) => token.textContent)).toEqual(['⟨U+202E⟩']);
    expect(tokens[0]!.getAttribute('title')).toBe('right-to-left override, U+202E');
    expect(container.textContent).not.toContain(RLO);
    // In output too (text mode), where newlines stay newlines.
    const output = shown(`line 1\nline 2 ${RLO}gpj.exe\u2066x`, { mode: 'text' });
    expect(output.container.textContent).not.toMatch(/[\u202e\u2066]/);
    expect(output.plain).toBe('line 1\nline 2 gpj.exex');
  });

  it('renders markup as text: nothing but text nodes and its own token spans', () => {
    const { container } = shown(`<b>bold</b>${ESC}<img src=x onerror=alert(1)>`);
    expect(container.querySelector('b, img')).toBeNull();
    expect(
      [...container.querySelectorAll('*')].every((element) => element.matches('span[data-testid="escape-token"]')),
    ).toBe(true);
    expect(container.textContent).toBe('<b>bold</b>⟨ESC⟩<img src=x onerror=alert(1)>');
  });
});
