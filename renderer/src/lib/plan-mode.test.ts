import { describe, expect, it } from 'vitest';
import { isPlanShortcut, planShortcutLabel } from './plan-mode.js';

const base = {
  key: 'P',
  ctrlKey: true,
  metaKey: false,
  altKey: false,
  shiftKey: true,
  isComposing: false,
  repeat: false,
};

describe('the plan mode shortcut', () => {
  it('is Ctrl+Shift+P, or ⌘⇧P on macOS, and nothing else', () => {
    expect(isPlanShortcut(base, false)).toBe(true);
    expect(isPlanShortcut({ ...base, key: 'p' }, false)).toBe(true);
    expect(isPlanShortcut({ ...base, ctrlKey: false, metaKey: true }, true)).toBe(true);
    expect(isPlanShortcut(base, true)).toBe(false);
    expect(isPlanShortcut({ ...base, shiftKey: false }, false)).toBe(false);
    expect(isPlanShortcut({ ...base, altKey: true }, false)).toBe(false);
    expect(isPlanShortcut({ ...base, repeat: true }, false)).toBe(false);
    expect(isPlanShortcut({ ...base, isComposing: true }, false)).toBe(false);
    expect(isPlanShortcut({ ...base, key: 'X' }, false)).toBe(false);
    expect(planShortcutLabel(true)).toBe('⌘⇧P');
    expect(planShortcutLabel(false)).toBe('Ctrl+Shift+P');
  });
});
