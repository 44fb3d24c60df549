import type { HighlighterCore, LanguageInput } from 'shiki/core';
import type { Highlighter } from './markdown.js';

/**
 * Code block highlighting with shiki, loaded only when a reply first shows a code block (the
 * first paint never waits for it), with a small fixed set of languages; any other stays plain.
 *
 * The page's CSP has `style-src-attr 'none'`, so shiki's inline `style` colours would be refused:
 * the css-variables theme gives each token a variable name instead, and we hand out a class per
 * name (`hl-token-keyword`…); the colours for light and dark live in Markdown.svelte's stylesheet.
 */

type Loader = () => Promise<{ default: LanguageInput }>;

const LANGUAGES: Readonly<Record<string, Loader>> = {
  typescript: () => import('shiki/langs/typescript.mjs'),
  javascript: () => import('shiki/langs/javascript.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  shellscript: () => import('shiki/langs/shellscript.mjs'),
  python: () => import('shiki/langs/python.mjs'),
  diff: () => import('shiki/langs/diff.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  go: () => import('shiki/langs/go.mjs'),
  sql: () => import('shiki/langs/sql.mjs'),
  css: () => import('shiki/langs/css.mjs'),
};

/** The names a fence may use for each language. */
const ALIASES: Readonly<Record<string, string>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsonc: 'json',
  sh: 'shellscript',
  bash: 'shellscript',
  shell: 'shellscript',
  zsh: 'shellscript',
  console: 'shellscript',
  py: 'python',
  patch: 'diff',
  yml: 'yaml',
  rs: 'rust',
  golang: 'go',
};

/** The language a fence word names, if it is one of ours. */
export function knownLanguage(word: string): string | null {
  const name = ALIASES[word.toLowerCase()] ?? word.toLowerCase();
  return name in LANGUAGES ? name : null;
}

let core: Promise<HighlighterCore> | null = null;
const loading = new Map<string, Promise<void>>();

function loadCore(): Promise<HighlighterCore> {
  core ??= (async () => {
    const [{ createHighlighterCore, createCssVariablesTheme }, { createJavaScriptRegexEngine }] = await Promise.all([
      import('shiki/core'),
      import('shiki/engine/javascript'),
    ]);
    return createHighlighterCore({
      themes: [createCssVariablesTheme({ name: 'drover', variablePrefix: '--hl-' })],
      langs: [],
      engine: createJavaScriptRegexEngine(),
    });
  })();
  return core;
}

/**
 * Loads the highlighter and the languages named (those we know), then answers a function that
 * highlights any loaded language synchronously. A failed load leaves code plain.
 */
export async function loadHighlighter(words: readonly string[]): Promise<Highlighter> {
  const highlighter = await loadCore();
  const names = [...new Set(words.map(knownLanguage).filter((name): name is string => name !== null))];
  await Promise.all(
    names.map((name) => {
      let pending = loading.get(name);
      if (!pending) {
        pending = LANGUAGES[name]!().then((module) => highlighter.loadLanguage(module.default));
        loading.set(name, pending);
      }
      return pending;
    }),
  );
  const loaded = new Set(highlighter.getLoadedLanguages());
  return (code, word) => {
    const name = knownLanguage(word);
    if (!name || !loaded.has(name)) return null;
    const lines = highlighter.codeToTokensBase(code, { lang: name, theme: 'drover' });
    return lines.map((line) => line.map((token) => ({ text: token.content, className: tokenClass(token) })));
  };
}

function tokenClass(token: { color?: string; fontStyle?: number }): string {
  const name = /^var\(--hl-([a-z-]+)/.exec(token.color ?? '')?.[1] ?? 'foreground';
  // Font style bit 1 is italic (shiki's FontStyle.Italic).
  return `hl-${name}${(token.fontStyle ?? 0) & 1 ? ' hl-italic' : ''}`;
}
