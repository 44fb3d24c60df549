// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { visibleCommand } from './format.js';

describe('renderer formatting', () => {
  it('shows control characters escaped, as the gate does', () => {
    expect(visibleCommand('ls\nrm')).toBe('ls\\nrm');
  });
});
