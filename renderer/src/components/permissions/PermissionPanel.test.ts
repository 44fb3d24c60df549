// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import type { PermissionRequest } from '@shared/contract.js';
import type { DroverApi } from '../../lib/api.js';
import { PermissionsState } from '../../lib/state/permissions.svelte.js';
import { ARM_MS } from '../../lib/state/arming.svelte.js';
import { shortcutLetter } from '../../lib/permission-keys.js';
import PermissionPanel from './PermissionPanel.svelte';

function request(id: string, patch: Partial<PermissionRequest> = {}): PermissionRequest {
  return {
    id,
    sessionId: 's1',
    command: 'ls -la',
    visibleCommand: 'ls -la',
    cwd: '/tmp',
    background: false,
    programGrant: 'ls',
    reason: 'no allowlist entry or grant covers it',
    createdAt: `2025-01-01T12:00:0${id.slice(-1)}.000Z`,
    ...patch,
  };
}

/** Just enough of the api: an empty listing, answers that succeed, and a way to fire events. */
function fakeApi() {
  const listeners = new Map<string, (payload: unknown) => void>();
  const answerPermission = vi.fn(async (_input: { requestId: string; answer: string }) => ({ grants: [] }));
  const api = {
    listPermissions: async () => ({ pending: [], grants: [] }),
    answerPermission,
    on: (name: string, listener: (payload: unknown) => void) => {
      listeners.set(name, listener);
      return () => listeners.delete(name);
    },
  } as unknown as DroverApi;
  const emit = (name: string, payload: unknown) => {
    listeners.get(name)?.(payload);
    flushSync();
  };
  return { api, answerPermission, emit };
}

let composer: HTMLTextAreaElement;
let stops: (() => void)[] = [];

async function setUp() {
  const { api, answerPermission, emit } = fakeApi();
  const permissions = new PermissionsState(api, 's1');
  stops.push(permissions.start());
  await vi.waitFor(() => expect(permissions.loaded).toBe(true));
  vi.useFakeTimers();
  const onLeave = vi.fn(() => composer.focus());
  render(PermissionPanel, { permissions, onLeave });
  const arrive = (...requests: PermissionRequest[]) => {
    for (const one of requests) emit('permissionRequested', { request: one });
  };
  return { permissions, answerPermission, arrive, onLeave };
}

function key(target: Element | Document, init: KeyboardEventInit): void {
  fireEvent.keyDown(target, { bubbles: true, ...init });
  flushSync();
}

/** Lets the answer's promise settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  flushSync();
}

const panel = () => screen.getByTestId('permission-modal');
const button = (testId: string) => screen.getByTestId(testId);

beforeEach(() => {
  composer = document.createElement('textarea');
  document.body.append(composer);
});

afterEach(() => {
  cleanup();
  for (const stop of stops.splice(0)) stop();
  composer.remove();
  vi.useRealTimers();
});

describe('PermissionPanel', () => {
  it('shows a request without taking the focus from a field being typed in, disarmed for a moment', async () => {
    const { arrive } = await setUp();
    composer.focus();
    arrive(request('r1'));
    expect(panel().dataset.requestId).toBe('r1');
    expect(document.activeElement).toBe(composer);
    expect(panel().getAttribute('aria-modal')).toBeNull();
    expect(button('permission-allow').getAttribute('aria-disabled')).toBe('true');
    expect(screen.getByTestId('permission-arming')).toBeTruthy();
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    expect(button('permission-allow').getAttribute('aria-disabled')).toBeNull();
    expect(screen.queryByTestId('permission-arming')).toBeNull();
    expect(screen.getByTestId('permission-announcement').textContent).toContain('ls -la');
  });

  it('takes the focus onto its frame, never an allowing button, when nobody is typing', async () => {
    const { arrive } = await setUp();
    arrive(request('r1'));
    expect(document.activeElement).toBe(panel());
  });

  it('never answers a plain letter, armed or not, wherever it is typed', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    for (const letter of ['a', 's', 'p', 'r', 'A', 'R', 'Enter']) {
      vi.advanceTimersByTime(ARM_MS);
      flushSync();
      key(composer, { key: letter, code: letter.length === 1 ? `Key${letter.toUpperCase()}` : letter });
      key(panel(), { key: letter, code: `Key${letter.toUpperCase()}` });
      key(document.body, { key: letter, code: `Key${letter.toUpperCase()}` });
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    expect(panel().dataset.requestId).toBe('r1');
  });

  it('disarms again on every key typed elsewhere: a click meant for something else answers nothing', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    expect(panel().dataset.armed).toBe('true');
    key(composer, { key: 'h', code: 'KeyH' });
    expect(panel().dataset.armed).toBe('false');
    // A modifier on its own (Alt on its way to Alt+A) is no keystroke.
    vi.advanceTimersByTime(ARM_MS - 1);
    key(composer, { key: 'Alt', code: 'AltLeft', altKey: true });
    flushSync();
    expect(panel().dataset.armed).toBe('false');
    await fireEvent.click(button('permission-allow'));
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    flushSync();
    expect(panel().dataset.armed).toBe('true');
    // A shortcut typed while disarmed answers nothing and counts as typing: the wait starts over.
    key(composer, { key: 'h', code: 'KeyH' });
    key(composer, { key: 'a', code: 'KeyA', altKey: true });
    vi.advanceTimersByTime(ARM_MS - 1);
    flushSync();
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    expect(panel().dataset.armed).toBe('false');
    vi.advanceTimersByTime(1);
    flushSync();
    await fireEvent.click(button('permission-allow'));
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r1', answer: 'allow' }));
  });

  it('answers Alt+R from the composer once armed, and the composer keeps the focus', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    key(composer, { key: 'r', code: 'KeyR', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r1', answer: 'reject' }));
    expect(screen.queryByTestId('permission-modal')).toBeNull();
    expect(document.activeElement).toBe(composer);
  });

  it('queues requests with a count; the next one arms afresh and takes no repeated key', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'), request('r2'));
    expect(screen.getByTestId('permission-count').textContent).toBe('1 more waiting');
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    key(composer, { key: 's', code: 'KeyS', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenLastCalledWith(expect.objectContaining({ requestId: 'r1', answer: 'allow_always' }));
    expect(panel().dataset.requestId).toBe('r2');
    expect(panel().dataset.armed).toBe('false');
    key(composer, { key: 's', code: 'KeyS', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledTimes(1);
  });

  it('offers Alt+P only with a program entry, and reads Option+letter by its key on macOS', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1', { programGrant: null }));
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    expect(screen.queryByTestId('permission-allow-program')).toBeNull();
    key(composer, { key: 'π', code: 'KeyP', altKey: true });
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    key(composer, { key: 'å', code: 'KeyA', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ answer: 'allow' }));
  });

  it('Alt+G goes to the frame; Tab stays inside; Esc goes back where the focus came from, without answering', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    key(composer, { key: 'g', code: 'KeyG', altKey: true });
    expect(document.activeElement).toBe(panel());
    key(panel(), { key: 'Tab', code: 'Tab' });
    expect(document.activeElement).toBe(button('permission-allow'));
    key(document.activeElement!, { key: 'Tab', code: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(button('permission-reject'));
    key(document.activeElement!, { key: 'Tab', code: 'Tab' });
    expect(document.activeElement).toBe(button('permission-allow'));
    key(document.activeElement!, { key: 'Escape', code: 'Escape' });
    expect(document.activeElement).toBe(composer);
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    expect(panel().dataset.requestId).toBe('r1');
  });

  it('hands the focus to the composer when it had taken it itself and the person leaves or answers the last request', async () => {
    const { arrive, onLeave, answerPermission } = await setUp();
    arrive(request('r1'), request('r2'));
    expect(document.activeElement).toBe(panel());
    key(panel(), { key: 'Escape', code: 'Escape' });
    expect(onLeave).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(composer);
    // Back in by click: the answered request's successor gets the frame, the last answer gives the focus back.
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    button('permission-allow').focus();
    await fireEvent.click(button('permission-allow'));
    await settle();
    expect(panel().dataset.requestId).toBe('r2');
    expect(document.activeElement).toBe(panel());
    vi.advanceTimersByTime(ARM_MS);
    flushSync();
    button('permission-reject').focus();
    await fireEvent.click(button('permission-reject'));
    await settle();
    expect(answerPermission).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('permission-modal')).toBeNull();
    expect(document.activeElement).toBe(composer);
  });
});

describe('shortcutLetter', () => {
  const base = { key: 'a', code: 'KeyA', altKey: true, ctrlKey: false, metaKey: false, shiftKey: false };
  it('needs Alt alone: a plain letter, AltGr (Ctrl+Alt), Cmd or Shift is no shortcut', () => {
    expect(shortcutLetter(base)).toBe('a');
    expect(shortcutLetter({ ...base, altKey: false })).toBeNull();
    expect(shortcutLetter({ ...base, ctrlKey: true, key: 'ą' })).toBeNull();
    expect(shortcutLetter({ ...base, metaKey: true })).toBeNull();
    expect(shortcutLetter({ ...base, shiftKey: true })).toBeNull();
    expect(shortcutLetter({ ...base, isComposing: true })).toBeNull();
  });

  it("reads the key's letter first (AZERTY), its position when Option made another character (macOS)", () => {
    expect(shortcutLetter({ ...base, key: 'q', code: 'KeyA' })).toBe('q');
    expect(shortcutLetter({ ...base, key: '®', code: 'KeyR' })).toBe('r');
  });
});
