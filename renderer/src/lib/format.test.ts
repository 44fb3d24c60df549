// @vitest-environment jsdom
import { beforeAll, describe, expect, it } from 'vitest';
import { formatCount, prettyJson, prettyJsonParts, visibleCommand } from './format.js';
import { taskNotice } from './notify.js';
import { settledRow } from './test-tasks.js';
import { loadLocale } from './state/locale.svelte.js';

// These read times and counts as the person's locale writes them (before it is in: state/locale.test.ts).
beforeAll(loadLocale);

const joined = (value: unknown) =>
  prettyJsonParts(value)
    .map((part) => ('text' in part ? part.text : part.string))
    .join('');

describe('renderer formatting', () => {
  it('groups counts as the locale does, through one formatter made once', () => {
    for (const value of [0, 7, 1234, 2_000_000, 1234.5]) expect(formatCount(value)).toBe(value.toLocaleString());
  });

  it('shows control characters escaped, as the gate does', () => {
    expect(visibleCommand('ls\nrm')).toBe('ls\\nrm');
  });

  it('writes arguments as JSON does, with each string apart so its escapes can show as tokens', () => {
    const plain = {
      command: 'grep "a\\b" x',
      n: 1,
      on: true,
      none: null,
      list: [1, 'two', {}, []],
      nested: { 'k"ey': 2 },
    };
    expect(joined(plain)).toBe(prettyJson(plain));
    expect(prettyJsonParts({ command: 'a\u001b\n' })).toEqual([
      { text: '{\n  "' },
      { string: 'command' },
      { text: '": "' },
      { string: 'a\u001b\n' },
      { text: '"\n}' },
    ]);
    expect(prettyJsonParts(null)).toEqual([{ text: '(none)' }]);
  });

  it('keeps a notification to plain text: a bidi control in a command is escaped', () => {
    const notice = taskNotice(
      'running',
      settledRow('bg_1', '2025-01-01T12:00:00.000Z', { command: 'echo \u202egpj.exe' }),
      null,
    );
    expect(notice?.title).toBe('Task finished: echo \\u{202e}gpj.exe');
  });
});
