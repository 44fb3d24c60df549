import type { PermissionAnswer } from '@shared/contract.js';

/**
 * The permission panel's keyboard rules. A request only ever answers a key that cannot be
 * meant for anything else:
 * - Never a plain letter: a person typing "please…" into the composer once granted
 *   "Always allow" with the "p".
 * - Never a key typed into a field (the composer, the terminal's hidden textarea, any input or
 *   editable element): there Alt/Option+letter belongs to the field. macOS Option+S types "ß"
 *   (US) or "ś" (Polish Pro), and readline in the terminal reads Alt+P and Alt+R itself.
 * - Never read by the key's position (`event.code`): a key that gave another character than its
 *   letter was typed as that character, whatever it would have been on a US layout.
 * - Never while an input method composes, never an auto-repeat.
 * The answer letters act only with the focus in the panel or on nothing (the page body); F6
 * takes the focus there from a field, and never types a character on any layout.
 */
export const ANSWER_LETTERS: Readonly<Record<string, PermissionAnswer>> = {
  a: 'allow',
  s: 'allow_always',
  p: 'allow_program',
  /** A sandboxed connection's host, for the rest of the session (only a connection offers it). */
  h: 'allow_host',
  r: 'reject',
};

/**
 * Moves the focus to the panel's frame (never onto an allowing button), from anywhere, fields
 * included. A function key types nothing on any layout (an Alt+letter chord types a character
 * with macOS Option, and Ctrl+Alt is AltGr on Windows); F6 is the platforms' "next region" key,
 * and Chromium reports it as `key: "F6"` whatever the layout. While an input method composes,
 * F6 is its own (Japanese IMEs convert to hiragana with it), so it is left alone then.
 */
export const GO_TO_REQUEST_KEY = 'F6';

/** The subset of a keyboard event these rules read (a DOM KeyboardEvent fits). */
export interface KeyLike {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  repeat?: boolean;
  isComposing?: boolean;
  /** 229 while an input method takes the key (the first key of a composition is not yet `isComposing`). */
  keyCode?: number;
  getModifierState?: (key: string) => boolean;
}

/** Where the focus was when a key went down, as far as the panel cares. */
export type KeyPlace = 'panel' | 'page' | 'field' | 'elsewhere';

/** What the panel makes of a key. */
export type PanelKey =
  /** F6: the focus goes to the panel's frame. */
  | { kind: 'go-to-request' }
  /** An answer's chord where answers act: the panel takes it (it answers only if armed, not repeated). */
  | { kind: 'answer'; answer: PermissionAnswer }
  /** Inside the panel: Tab cycles, Esc leaves. */
  | { kind: 'tab' }
  | { kind: 'leave' }
  /** Enter or Space held down inside the panel: it never activates a button. */
  | { kind: 'held' }
  /** Keys that answer nothing and mean nothing to the panel: a modifier alone, Enter/Space pressing a button, scrolling it. */
  | { kind: 'none' }
  /** Typing meant for something else: it goes where it was going, and the answers disarm. */
  | { kind: 'typing' };

/** True while an input method owns the key: it never answers and never moves the focus. */
export function isComposingKey(event: KeyLike): boolean {
  return !!event.isComposing || event.key === 'Process' || event.keyCode === 229;
}

/**
 * The letter of an answer chord, or null: Alt with a letter (Control on macOS, where Option
 * types characters and Control never does), no other modifier (AltGr is Ctrl+Alt on Windows
 * and its own modifier on Linux), and a key that reports that very letter.
 */
export function shortcutLetter(event: KeyLike, mac: boolean): string | null {
  if (isComposingKey(event) || event.metaKey || event.shiftKey) return null;
  if (event.getModifierState?.('AltGraph')) return null;
  if (mac ? !event.ctrlKey || event.altKey : !event.altKey || event.ctrlKey) return null;
  return /^[a-z]$/i.test(event.key) ? event.key.toLowerCase() : null;
}

function isGoToRequest(event: KeyLike): boolean {
  return event.key === GO_TO_REQUEST_KEY && !event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey;
}

const MODIFIER_KEYS = new Set([
  'Alt',
  'AltGraph',
  'Control',
  'Meta',
  'Shift',
  'CapsLock',
  'Fn',
  'FnLock',
  'Hyper',
  'Super',
  'OS',
  'NumLock',
  'ScrollLock',
]);

/** A modifier pressed alone (the Alt of Alt+A on its way down) is no keystroke of its own. */
export function isModifierOnly(event: Pick<KeyLike, 'key'>): boolean {
  return MODIFIER_KEYS.has(event.key);
}

/** Keys that move around inside the panel (it scrolls past 60vh) without typing anything. */
const PANEL_NAVIGATION = new Set([
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'PageUp',
  'PageDown',
  'Home',
  'End',
]);

/**
 * The panel's reading of a key that went down at `place`, while a request is shown.
 * `onButton`: the key went down on one of the panel's buttons. `offered`: the answers the
 * request offers (no program grant, no Alt+P).
 */
export function readPanelKey(
  event: KeyLike,
  place: KeyPlace,
  mac: boolean,
  onButton: boolean,
  offered: (answer: PermissionAnswer) => boolean,
): PanelKey {
  if (isModifierOnly(event)) return { kind: 'none' };
  // An input method's key (and a dead key, or a key the browser could not name) is typing.
  if (isComposingKey(event)) return { kind: 'typing' };
  if (isGoToRequest(event)) return { kind: 'go-to-request' };
  if (place === 'panel' || place === 'page') {
    const letter = shortcutLetter(event, mac);
    const answer = letter === null ? undefined : ANSWER_LETTERS[letter];
    if (answer && offered(answer)) return { kind: 'answer', answer };
  }
  if (place !== 'panel') return { kind: 'typing' };
  const plain = !event.altKey && !event.ctrlKey && !event.metaKey;
  if (event.key === 'Tab' && plain) return { kind: 'tab' };
  if (event.key === 'Escape') return { kind: 'leave' };
  if ((event.key === 'Enter' || event.key === ' ') && plain) {
    if (event.repeat) return { kind: 'held' };
    return onButton ? { kind: 'none' } : { kind: 'typing' };
  }
  if (plain && !event.shiftKey && PANEL_NAVIGATION.has(event.key)) return { kind: 'none' };
  return { kind: 'typing' };
}

const TEXT_INPUT_TYPES = new Set([
  '',
  'text',
  'search',
  'url',
  'tel',
  'email',
  'password',
  'number',
  'date',
  'datetime-local',
  'month',
  'time',
  'week',
]);
const TYPING_ROLES =
  '[contenteditable]:not([contenteditable="false"]), [role="textbox"], [role="searchbox"], [role="combobox"]';

/**
 * Where the person types: a text field, a text area (the terminal's hidden one too), a select,
 * an editable element or one that says it takes text. The panel never takes the focus from
 * one, and its answer chords never act there.
 */
export function isTypingTarget(element: Element | null): boolean {
  if (!element) return false;
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) return TEXT_INPUT_TYPES.has(element.type);
  if (element instanceof HTMLElement && element.isContentEditable) return true;
  // Also when the browser does not say (jsdom has no isContentEditable).
  return element.closest(TYPING_ROLES) !== null;
}

/** The element a key event really started on: inside a shadow root too, not its host. */
export function keyOrigin(event: Event): EventTarget | null {
  return event.composedPath()[0] ?? event.target;
}

/** Places a key's origin: inside the panel, on nothing (the page body), in a field, or on something else. */
export function keyPlace(origin: EventTarget | null, panel: Element): KeyPlace {
  if (origin instanceof Node && panel.contains(origin)) return 'panel';
  const document = panel.ownerDocument;
  if (
    origin === null ||
    origin === document ||
    origin === document.body ||
    origin === document.documentElement ||
    origin === document.defaultView
  )
    return 'page';
  if (origin instanceof Element && isTypingTarget(origin)) return 'field';
  return 'elsewhere';
}

/** How an answer's chord is written on its button: "Alt+A", or "⌃A" on macOS. */
export function shortcutLabel(letter: string, mac: boolean): string {
  return mac ? `⌃${letter.toUpperCase()}` : `Alt+${letter.toUpperCase()}`;
}

/** The chord as `aria-keyshortcuts` spells it. */
export function shortcutAria(letter: string, mac: boolean): string {
  return `${mac ? 'Control' : 'Alt'}+${letter.toUpperCase()}`;
}
