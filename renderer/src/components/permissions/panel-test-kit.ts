import { afterEach, beforeEach, expect, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import type { PermissionRequest } from '@shared/contract.js';
import type { DroverApi } from '../../lib/api.js';
import { PermissionsState } from '../../lib/state/permissions.svelte.js';
import { ARM_MS } from '../../lib/state/arming.svelte.js';
import PermissionPanel from './PermissionPanel.svelte';

/** Shared by the permission panel's component tests: a request, a fake api, the panel rendered over it. */
export function request(id: string, patch: Partial<PermissionRequest> = {}): PermissionRequest {
  return {
    id,
    sessionId: 's1',
    command: 'ls -la',
    visibleCommand: 'ls -la',
    cwd: '/tmp',
    background: false,
    programGrant: 'ls',
    planMode: false,
    reason: 'no allowlist entry or grant covers it',
    createdAt: `2025-01-01T12:00:0${id.slice(-1)}.000Z`,
    agent: null,
    sandbox: 'none',
    network: null,
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

/** The field a person types in while a request arrives; one per test file, emptied before every test. */
export const composer = document.createElement('textarea');
composer.dataset.testid = 'composer';
const stops: (() => void)[] = [];

/** Registers the hooks every panel test file needs: the composer in the page, everything stopped and cleaned after. */
export function usePanelFixture(): () => ReturnType<typeof setUpPanel> {
  beforeEach(() => {
    composer.value = '';
    document.body.append(composer);
  });
  afterEach(() => {
    cleanup();
    for (const stop of stops.splice(0)) stop();
    composer.remove();
    document.body.replaceChildren();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
  return setUpPanel;
}

/** Renders the panel with fake timers; what must be stopped is stopped by the fixture's afterEach. */
async function setUpPanel() {
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
  const resolve = (requestId: string) => emit('permissionResolved', { sessionId: 's1', requestId });
  return { permissions, answerPermission, arrive, resolve, onLeave };
}

/** A keydown at `target`, bubbling as the browser sends it; false when something called preventDefault. */
export function key(target: Element | Document, init: KeyboardEventInit & { keyCode?: number }): boolean {
  const event = new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
  // jsdom leaves the legacy keyCode at 0 whatever the init says.
  if (init.keyCode !== undefined) Object.defineProperty(event, 'keyCode', { value: init.keyCode });
  const notCancelled = target.dispatchEvent(event);
  flushSync();
  return notCancelled;
}

/** Waits out the arming. */
export function arm(): void {
  vi.advanceTimersByTime(ARM_MS);
  flushSync();
}

/** Lets the answer's promise settle. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  flushSync();
}

/** A mouse press on `target` (pointerdown, mousedown), without its release. */
export function pointerDown(target: Element): void {
  fireEvent.pointerDown(target, { button: 0, buttons: 1, isPrimary: true, pointerType: 'mouse' });
  fireEvent.mouseDown(target, { button: 0, buttons: 1 });
  flushSync();
}

/** The release: pointerup and mouseup on `target`, then the click the browser sends to where press and release met. */
export async function pointerUp(target: Element, clickTarget: Element = target): Promise<void> {
  fireEvent.pointerUp(target, { button: 0, isPrimary: true, pointerType: 'mouse' });
  fireEvent.mouseUp(target, { button: 0 });
  // A pointer's click counts its presses; a keyboard's (Enter, Space) has detail 0.
  await fireEvent.click(clickTarget, { button: 0, detail: 1 });
  flushSync();
}

export const panel = () => screen.getByTestId('permission-modal');
export const button = (testId: string) => screen.getByTestId(testId);
