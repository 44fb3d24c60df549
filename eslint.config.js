// Lint for the whole tree: ESLint's recommended rules, typescript-eslint's, and Svelte's.
// `npm test` runs it with --max-warnings 0; formatting is Prettier's job, not this file's.
import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';

export default ts.config(
  {
    ignores: [
      'node_modules/',
      'out/',
      'dist/',
      'test-results/',
      'playwright-report/',
      '.reports/',
      '.scratch/',
      'build/',
    ],
  },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: ['.svelte'] } },
    // svelte-check type-checks these files and knows the DOM's types; ESLint's scope rule does not.
    rules: { 'no-undef': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // The fence, the log search and the command display match control characters on purpose:
      // that is how escapes in untrusted output are found and defanged.
      'no-control-regex': 'off',
      // A state class picks per field: a SvelteMap where the page reads it, a plain Map for
      // bookkeeping the page never reads (a SvelteMap there would make every lookup a dependency).
      'svelte/prefer-svelte-reactivity': 'off',
      // `{' '}` keeps one space between inline parts where a line break would change the layout
      // (inside <pre>, between a label and its chip).
      'svelte/no-useless-mustaches': 'off',
    },
  },
  {
    // Tests read JSON answers whose shape is the thing under test.
    files: ['test/**', 'e2e/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
