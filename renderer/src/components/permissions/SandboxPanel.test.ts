// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { SANDBOX_DEFAULTS, type SessionSandbox } from '@shared/schemas/sandbox.js';
import { DroverError } from '@shared/ipc/errors.js';
import type { DroverApi } from '../../lib/api.js';
import { testEvents } from '../../lib/test-tasks.js';
import { SessionSandboxState } from '../../lib/state/sandbox.svelte.js';
import SandboxPanel from './SandboxPanel.svelte';

const view = (patch: Partial<SessionSandbox> = {}): SessionSandbox => ({
  sessionId: 's1',
  policy: SANDBOX_DEFAULTS,
  hosts: [],
  status: { available: true, platform: 'linux', detail: 'bubblewrap' },
  active: true,
  ...patch,
});

/** The session's sandbox calls: hosts kept as the service keeps them, refused as its schema refuses them. */
function fakeApi(first: SessionSandbox) {
  const events = testEvents();
  let current = first;
  const api = {
    on: events.on,
    getSandbox: async () => current,
    allowSandboxHost: vi.fn(async ({ host }: { host: string }) => {
      if (host.includes('/'))
        throw new DroverError('invalid_input', `Invalid input: host: is not a host name`, { path: 'host' });
      current = { ...current, hosts: [...current.hosts, host] };
      return current;
    }),
    removeSandboxHost: vi.fn(async ({ host }: { host: string }) => {
      current = { ...current, hosts: current.hosts.filter((kept) => kept !== host) };
      return current;
    }),
  };
  return { api, emit: (sandbox: SessionSandbox) => (events.emit('sandboxChanged', { sandbox }), flushSync()) };
}

async function renderPanel(first: SessionSandbox) {
  const { api, emit } = fakeApi(first);
  const sandbox = new SessionSandboxState(api as unknown as DroverApi, 's1');
  const stop = sandbox.start();
  await vi.waitFor(() => expect(sandbox.sandbox).not.toBeNull());
  render(SandboxPanel, { sandbox });
  return { api, emit, stop };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) await Promise.resolve();
  flushSync();
}

const hosts = () => screen.queryAllByTestId('session-sandbox-host').map((item) => item.dataset.value);

afterEach(() => cleanup());

describe("a session's sandbox block", () => {
  it('says the commands run sandboxed, follows sandboxChanged, and removes a host', async () => {
    const { api, emit, stop } = await renderPanel(view());
    expect(screen.getByTestId('session-sandbox-state').textContent).toBe('on');
    expect(screen.getByTestId('session-sandbox-detail').textContent).toContain('run in bubblewrap');
    // Allowed from the permission panel: the event brings it.
    emit(view({ hosts: ['127.0.0.1:8080'] }));
    expect(hosts()).toEqual(['127.0.0.1:8080']);
    expect(screen.getByTestId('session-sandbox-state').textContent).toBe('on · 1 host for this session');
    // Another session's change is not this one's.
    emit(view({ sessionId: 's2', hosts: ['elsewhere.example'] }));
    expect(hosts()).toEqual(['127.0.0.1:8080']);
    await fireEvent.click(screen.getByTestId('session-sandbox-remove'));
    await settle();
    expect(api.removeSandboxHost).toHaveBeenCalledExactlyOnceWith({ sessionId: 's1', host: '127.0.0.1:8080' });
    expect(hosts()).toEqual([]);
    stop();
  });

  it('adds a host from its field; a refused one shows the message and keeps what was typed', async () => {
    const { api, stop } = await renderPanel(view());
    const input = screen.getByTestId('session-sandbox-input') as HTMLInputElement;
    await fireEvent.input(input, { target: { value: 'api.example.com:443' } });
    await fireEvent.submit(input.closest('form')!);
    await settle();
    expect(api.allowSandboxHost).toHaveBeenCalledExactlyOnceWith({ sessionId: 's1', host: 'api.example.com:443' });
    expect(hosts()).toEqual(['api.example.com:443']);
    expect(input.value).toBe('');
    await fireEvent.input(input, { target: { value: 'http://x/' } });
    await fireEvent.submit(input.closest('form')!);
    await settle();
    expect(screen.getByTestId('session-sandbox-error').textContent).toBe(
      'Not added: Invalid input: host: is not a host name',
    );
    expect(input.value).toBe('http://x/');
    expect(hosts()).toEqual(['api.example.com:443']);
    stop();
  });

  it('says why not when the sandbox is off in Settings, and shows nothing on a machine without one', async () => {
    const off = await renderPanel(view({ active: false }));
    expect(screen.getByTestId('session-sandbox').dataset.active).toBe('false');
    expect(screen.getByTestId('session-sandbox-detail').textContent).toContain('off in Settings');
    off.stop();
    cleanup();
    const none = await renderPanel(
      view({ active: false, status: { available: false, platform: 'win32', detail: 'no sandbox on win32' } }),
    );
    expect(screen.queryByTestId('session-sandbox')).toBeNull();
    none.stop();
  });
});
