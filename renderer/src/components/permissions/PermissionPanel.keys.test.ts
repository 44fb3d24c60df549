// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/svelte';
import { isComposingKey, readPanelKey, shortcutLetter, type KeyLike } from '../../lib/permission-keys.js';
import { arm, button, key, panel, request, settle, composer, usePanelFixture } from './panel-test-kit.js';

const setUp = usePanelFixture();

/** What macOS Option (and AltGr-less layouts) make of a letter key: the character the OS typed, on the key's position. */
const OPTION_CHARACTERS: { key: string; code: string; what: string }[] = [
  { key: 'ß', code: 'KeyS', what: 'Option+S, US' },
  { key: 'ś', code: 'KeyS', what: 'Option+S, Polish Pro' },
  { key: 'å', code: 'KeyA', what: 'Option+A, US' },
  { key: 'ą', code: 'KeyA', what: 'Option+A, Polish Pro' },
  { key: 'π', code: 'KeyP', what: 'Option+P, US' },
  { key: '®', code: 'KeyR', what: 'Option+R, US' },
  { key: '©', code: 'KeyG', what: 'Option+G, US' },
];

/** The places a person types into: the composer, the terminal's hidden text area, an input, an editable element. */
function fields(): { name: string; element: HTMLElement }[] {
  const terminal = document.createElement('textarea');
  terminal.className = 'xterm-helper-textarea';
  const input = document.createElement('input');
  const editable = document.createElement('div');
  editable.setAttribute('contenteditable', 'true');
  editable.tabIndex = 0;
  document.body.append(terminal, input, editable);
  return [
    { name: 'composer', element: composer },
    { name: 'terminal', element: terminal },
    { name: 'input', element: input },
    { name: 'contenteditable', element: editable },
  ];
}

describe('PermissionPanel keys: a field keeps what is typed into it', () => {
  it('Option characters (ß ś å ą π ® ©) and Alt letters typed in a field answer nothing, move no focus, and are left to the field', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    for (const { name, element } of fields()) {
      const reached: string[] = [];
      element.addEventListener('keydown', (event) => reached.push(event.key));
      element.focus();
      const typed = [
        ...OPTION_CHARACTERS.map(({ key, code }) => ({ key, code, altKey: true })),
        // Windows and Linux Alt letters, and readline's M-a, M-p, M-r in the terminal.
        ...['a', 's', 'p', 'r', 'g'].map((letter) => ({
          key: letter,
          code: `Key${letter.toUpperCase()}`,
          altKey: true,
        })),
      ];
      for (const init of typed) {
        arm();
        expect(panel().dataset.armed, `${name}: armed before ${init.key}`).toBe('true');
        expect(key(element, init), `${name}: ${init.key} not cancelled`).toBe(true);
        expect(document.activeElement, `${name}: the focus stays after ${init.key}`).toBe(element);
        // Typed in a field: meant for it, so the answers disarm.
        expect(panel().dataset.armed).toBe('false');
      }
      expect(reached, `${name}: every key reached the field's own handlers`).toEqual(typed.map(({ key }) => key));
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    expect(panel().dataset.requestId).toBe('r1');
  });

  it('a field inside a shadow root is a field too: it keeps the focus and its Alt letters', async () => {
    const { arrive, answerPermission } = await setUp();
    const host = document.createElement('div');
    document.body.append(host);
    const input = document.createElement('input');
    host.attachShadow({ mode: 'open' }).append(input);
    input.focus();
    arrive(request('r1'));
    expect(host.shadowRoot!.activeElement).toBe(input);
    arm();
    expect(key(input, { key: 'r', code: 'KeyR', altKey: true, composed: true })).toBe(true);
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });
});

describe('PermissionPanel keys: answers on the page and in the panel', () => {
  it('with the focus on the page body, Alt+R rejects', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1'));
    panel().blur();
    expect(document.activeElement).toBe(document.body);
    arm();
    expect(key(document.body, { key: 'r', code: 'KeyR', altKey: true })).toBe(false);
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r1', answer: 'reject' }),
    );
    expect(screen.queryByTestId('permission-modal')).toBeNull();
  });

  it('on the page or in the panel, an Option character is no shortcut: never read by its key position', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1'));
    for (const { key: character, code } of OPTION_CHARACTERS) {
      arm();
      expect(key(panel(), { key: character, code, altKey: true })).toBe(true);
      expect(document.activeElement).toBe(panel());
      arm();
      expect(key(document.body, { key: character, code, altKey: true })).toBe(true);
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    // A Cyrillic layout's letter on the R key is no R either.
    arm();
    key(panel(), { key: 'к', code: 'KeyR', altKey: true });
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });

  it('F6 moves the focus from any field to the frame (Alt+G no longer does); inside, Alt+A allows', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    expect(key(composer, { key: 'g', code: 'KeyG', altKey: true })).toBe(true);
    expect(key(composer, { key: '©', code: 'KeyG', altKey: true })).toBe(true);
    expect(document.activeElement).toBe(composer);
    // With a modifier it is some other shortcut, not this one.
    expect(key(composer, { key: 'F6', code: 'F6', shiftKey: true })).toBe(true);
    expect(document.activeElement).toBe(composer);
    expect(key(composer, { key: 'F6', code: 'F6' })).toBe(false);
    expect(document.activeElement).toBe(panel());
    arm();
    key(panel(), { key: 'a', code: 'KeyA', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r1', answer: 'allow' }),
    );
  });

  it('nothing answers or moves while an input method composes (isComposing, Process, key code 229)', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    expect(key(composer, { key: 'F6', code: 'F6', isComposing: true })).toBe(true);
    expect(key(composer, { key: 'F6', code: 'F6', keyCode: 229 })).toBe(true);
    expect(document.activeElement).toBe(composer);
    key(composer, { key: 'F6', code: 'F6' });
    for (const target of [panel(), document.body]) {
      for (const init of [
        { key: 'r', code: 'KeyR', altKey: true, isComposing: true },
        { key: 'Process', code: 'KeyR', altKey: true },
        { key: 'r', code: 'KeyR', altKey: true, keyCode: 229 },
        { key: 'Enter', code: 'Enter', isComposing: true },
      ]) {
        arm();
        expect(key(target, init)).toBe(true);
        expect(panel().dataset.armed).toBe('false');
      }
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });

  it('AltGr, Ctrl, Meta or Shift with the letter, and dead keys, answer nothing', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1'));
    for (const init of [
      { key: 'ą', code: 'KeyA', altKey: true, ctrlKey: true },
      { key: 'r', code: 'KeyR', altKey: true, ctrlKey: true },
      { key: 'r', code: 'KeyR', altKey: true, metaKey: true },
      { key: 'R', code: 'KeyR', altKey: true, shiftKey: true },
      { key: 'r', code: 'KeyR', ctrlKey: true },
      { key: 'Dead', code: 'KeyE', altKey: true },
      { key: 'Unidentified', code: 'KeyR', altKey: true },
    ]) {
      arm();
      expect(key(panel(), init), init.key).toBe(true);
      // Typed at the panel, but not for it: the answers disarm.
      expect(panel().dataset.armed).toBe('false');
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });

  it('a held chord answers once: its auto-repeat never answers the next request, and starts its wait over', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1'), request('r2'));
    arm();
    key(panel(), { key: 'r', code: 'KeyR', altKey: true });
    await settle();
    expect(panel().dataset.requestId).toBe('r2');
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(200);
      expect(key(panel(), { key: 'r', code: 'KeyR', altKey: true, repeat: true })).toBe(false);
      expect(panel().dataset.armed).toBe('false');
    }
    arm();
    expect(key(panel(), { key: 'r', code: 'KeyR', altKey: true, repeat: true })).toBe(false);
    await settle();
    expect(answerPermission).toHaveBeenCalledTimes(1);
    arm();
    key(panel(), { key: 'r', code: 'KeyR', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenLastCalledWith(expect.objectContaining({ requestId: 'r2', answer: 'reject' }));
  });

  it('a held Enter or Space never presses a button; a first press does not disarm', async () => {
    const { arrive } = await setUp();
    arrive(request('r1'));
    key(panel(), { key: 'Tab', code: 'Tab' });
    expect(document.activeElement).toBe(button('permission-allow'));
    arm();
    expect(key(button('permission-allow'), { key: 'Enter', code: 'Enter' })).toBe(true);
    expect(key(button('permission-allow'), { key: ' ', code: 'Space' })).toBe(true);
    expect(panel().dataset.armed).toBe('true');
    expect(key(button('permission-allow'), { key: 'Enter', code: 'Enter', repeat: true })).toBe(false);
    expect(key(button('permission-allow'), { key: ' ', code: 'Space', repeat: true })).toBe(false);
    expect(panel().dataset.armed).toBe('false');
    // Enter on the frame presses nothing, and was meant for something else.
    arm();
    expect(key(panel(), { key: 'Enter', code: 'Enter' })).toBe(true);
    expect(panel().dataset.armed).toBe('false');
  });

  it('on macOS the chord is Control with the letter: Option letters never answer, on the page or in a field', async () => {
    vi.stubGlobal('navigator', { ...navigator, platform: 'MacIntel', userAgent: 'Mozilla/5.0 (Macintosh)' });
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    expect(button('permission-reject').getAttribute('aria-keyshortcuts')).toBe('Control+R');
    expect(button('permission-reject').textContent).toContain('⌃R');
    for (const { key: character, code } of OPTION_CHARACTERS) {
      arm();
      expect(key(composer, { key: character, code, altKey: true })).toBe(true);
    }
    // Control+letter in a field is the field's (Emacs keys in macOS text fields).
    arm();
    expect(key(composer, { key: 'r', code: 'KeyR', ctrlKey: true })).toBe(true);
    key(composer, { key: 'F6', code: 'F6' });
    expect(document.activeElement).toBe(panel());
    for (const { key: character, code } of OPTION_CHARACTERS) {
      arm();
      expect(key(panel(), { key: character, code, altKey: true })).toBe(true);
    }
    arm();
    expect(key(panel(), { key: 'r', code: 'KeyR', altKey: true })).toBe(true);
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    arm();
    expect(key(panel(), { key: 'r', code: 'KeyR', ctrlKey: true })).toBe(false);
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r1', answer: 'reject' }),
    );
  });
});

describe('permission key rules', () => {
  const base: KeyLike = { key: 'a', altKey: true, ctrlKey: false, metaKey: false, shiftKey: false };
  const everything = () => true;

  it('shortcutLetter: one modifier (Alt; Control on macOS) and the letter event.key reports, nothing else', () => {
    expect(shortcutLetter(base, false)).toBe('a');
    expect(shortcutLetter({ ...base, key: 'A' }, false)).toBe('a');
    expect(shortcutLetter({ ...base, altKey: false }, false)).toBeNull();
    expect(shortcutLetter({ ...base, ctrlKey: true, key: 'ą' }, false)).toBeNull();
    expect(shortcutLetter({ ...base, ctrlKey: true }, false)).toBeNull();
    expect(shortcutLetter({ ...base, metaKey: true }, false)).toBeNull();
    expect(shortcutLetter({ ...base, shiftKey: true }, false)).toBeNull();
    expect(shortcutLetter({ ...base, isComposing: true }, false)).toBeNull();
    expect(shortcutLetter({ ...base, keyCode: 229 }, false)).toBeNull();
    expect(shortcutLetter({ ...base, getModifierState: (name) => name === 'AltGraph' }, false)).toBeNull();
    // AZERTY: the key says "q", so it is Q, wherever it sits.
    expect(shortcutLetter({ ...base, key: 'q' }, false)).toBe('q');
    for (const key of ['å', 'ß', 'ś', 'π', '®', '©', 'к', 'Dead', 'Unidentified', 'F6'])
      expect(shortcutLetter({ ...base, key }, false)).toBeNull();
    expect(shortcutLetter({ ...base, altKey: false, ctrlKey: true }, true)).toBe('a');
    expect(shortcutLetter(base, true)).toBeNull();
    expect(shortcutLetter({ ...base, ctrlKey: true }, true)).toBeNull();
  });

  it('readPanelKey: answers only on the page or in the panel, F6 anywhere but in a composition', () => {
    const altR = { ...base, key: 'r' };
    expect(readPanelKey(altR, 'page', false, false, everything)).toEqual({ kind: 'answer', answer: 'reject' });
    expect(readPanelKey(altR, 'panel', false, false, everything)).toEqual({ kind: 'answer', answer: 'reject' });
    expect(readPanelKey(altR, 'field', false, false, everything)).toEqual({ kind: 'typing' });
    expect(readPanelKey(altR, 'elsewhere', false, false, everything)).toEqual({ kind: 'typing' });
    expect(readPanelKey({ ...base, key: 'p' }, 'panel', false, false, (answer) => answer !== 'allow_program')).toEqual({
      kind: 'typing',
    });
    const f6 = { ...base, key: 'F6', altKey: false };
    for (const place of ['page', 'panel', 'field', 'elsewhere'] as const)
      expect(readPanelKey(f6, place, false, false, everything)).toEqual({ kind: 'go-to-request' });
    expect(readPanelKey({ ...f6, isComposing: true }, 'field', false, false, everything)).toEqual({ kind: 'typing' });
    expect(readPanelKey({ ...base, key: 'Alt' }, 'field', false, false, everything)).toEqual({ kind: 'none' });
    expect(isComposingKey({ ...base, key: 'Process' })).toBe(true);
  });
});
