import type { PermissionAnswer } from '@shared/contract.js';

/**
 * The permission panel's keyboard rules. A request never answers to a plain letter: a person
 * typing "please…" into the composer once granted "Always allow" with the "p". Answers take
 * Alt (Option on macOS) with a letter, or Enter/Space on a focused button of the panel.
 */
export const ANSWER_LETTERS: Readonly<Record<string, PermissionAnswer>> = { a: 'allow', s: 'allow_always', p: 'allow_program', r: 'reject' };

/** Alt+G moves the focus into the panel (to its frame, never onto an allowing button). */
export const GO_TO_REQUEST_LETTER = 'g';

/** The subset of a keyboard event these rules read (a DOM KeyboardEvent fits). */
export interface KeyLike {
  key: string;
  code: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  isComposing?: boolean;
}

/**
 * The letter of an Alt/Option shortcut, or null. Ctrl or Meta with it is no shortcut (AltGr is
 * Ctrl+Alt on Windows and types letters like "ą"), nor is Shift. The key's own letter counts
 * first; macOS's Option turns it into another character ("å"), so then the key's position does.
 */
export function shortcutLetter(event: KeyLike): string | null {
  if (!event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.isComposing) return null;
  if (/^[a-z]$/i.test(event.key)) return event.key.toLowerCase();
  const position = /^Key([A-Z])$/.exec(event.code);
  return position ? position[1]!.toLowerCase() : null;
}

const MODIFIER_KEYS = new Set(['Alt', 'AltGraph', 'Control', 'Meta', 'Shift', 'CapsLock', 'Fn', 'FnLock', 'Hyper', 'Super', 'OS', 'NumLock', 'ScrollLock']);

/** A modifier pressed alone (the Alt of Alt+A on its way down) is no keystroke of its own. */
export function isModifierOnly(event: Pick<KeyLike, 'key'>): boolean {
  return MODIFIER_KEYS.has(event.key);
}

const TEXT_INPUT_TYPES = new Set(['', 'text', 'search', 'url', 'tel', 'email', 'password', 'number', 'date', 'datetime-local', 'month', 'time', 'week']);

/** Where the person types: a text field, a text area, a select, an editable element. The panel never takes the focus from one. */
export function isTypingTarget(element: Element | null): boolean {
  if (!element) return false;
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) return TEXT_INPUT_TYPES.has(element.type);
  return element instanceof HTMLElement && element.isContentEditable;
}

/** How a shortcut is written on its button: "Alt+A", or "⌥A" on macOS. */
export function shortcutLabel(letter: string, mac: boolean): string {
  return mac ? `⌥${letter.toUpperCase()}` : `Alt+${letter.toUpperCase()}`;
}

export function isMac(navigatorLike: { platform?: string; userAgent?: string }): boolean {
  return /mac|iphone|ipad/i.test(navigatorLike.platform || navigatorLike.userAgent || '');
}
