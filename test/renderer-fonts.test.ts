import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

describe("the page's font stacks", () => {
  it('has a monospace stack in app.css for each platform boot.ts names, ending in the generic family', () => {
    const css = readFileSync(resolve(import.meta.dirname, '../renderer/src/app.css'), 'utf8');
    // The platforms renderer/src/lib/platform.ts names (its 'other' keeps the whole list).
    const named = ['mac', 'windows', 'linux'];
    for (const platform of named) {
      const block = new RegExp(`:root\\[data-fonts='${platform}'\\]\\s*\\{\\s*--font-mono:([^;]+);`).exec(css);
      expect(block, platform).not.toBeNull();
      expect(block![1]!.trim()).toMatch(/, monospace$/);
    }
    // Any other platform keeps the whole list.
    expect(/^\s*--font-mono: ui-monospace, .*, monospace;$/m.test(css)).toBe(true);
  });
});
