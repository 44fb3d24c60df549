import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gateTablesMarkdown, TABLES_BEGIN, TABLES_END } from '../../electron/permissions/tables-doc.js';

describe("README's permission tables", () => {
  it("are the gate's own tables, as `npm run docs:gate` writes them", () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const begin = readme.indexOf(TABLES_BEGIN);
    const end = readme.indexOf(TABLES_END);
    expect(begin, 'the README block').toBeGreaterThan(0);
    expect(readme.slice(begin + TABLES_BEGIN.length, end).trim()).toBe(gateTablesMarkdown().trim());
  });

  it('name every program that is never widened and the options that are never covered by their absence', () => {
    const markdown = gateTablesMarkdown();
    for (const program of ['bash', 'sqlite3', 'awk', 'kill', 'tmux', 'source', 'systemd-run'])
      expect(markdown).toContain(`\`${program}\``);
    expect(markdown).toContain('`git config`');
    expect(markdown).not.toMatch(/`--upload-file/);
    expect(markdown).not.toMatch(/`--script-shell/);
  });
});
