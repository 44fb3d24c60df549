// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { contract, type AppInfo, type PublicSettings } from '@shared/contract.js';
import { invalidInput } from '@shared/ipc/errors.js';
import {
  SANDBOX_DEFAULTS,
  sandboxPolicyOf,
  type SandboxSettings,
  type SandboxStatus,
} from '@shared/schemas/sandbox.js';
import type { DroverApi } from '../../lib/api.js';
import { sandboxStatusText } from '../../lib/sandbox.js';
import { SettingsState } from '../../lib/state/settings.svelte.js';
import SandboxSection from './SandboxSection.svelte';

const BUBBLEWRAP: SandboxStatus = { available: true, platform: 'linux', detail: 'bubblewrap, network through a proxy' };

/**
 * The settings calls of the api: changes are checked by the contract's own input schema (as the
 * router does, with its error), and the sandbox section of the file is merged as the service does.
 */
function fakeApi(status: SandboxStatus, file: SandboxSettings = {}) {
  let stored: SandboxSettings = { ...file };
  const view = () => ({ sandbox: sandboxPolicyOf(stored), commandAllowlist: [], tasks: { passEnvironment: [] } });
  const updateSettings = vi.fn(async (change: unknown) => {
    const parsed = contract.requests.updateSettings.input.safeParse(change);
    if (!parsed.success) throw invalidInput('input', parsed.error);
    // null takes a key back to its default, as the service's merge does.
    const next: Record<string, unknown> = { ...stored };
    for (const [key, value] of Object.entries(parsed.data.sandbox ?? {})) {
      if (value === null) delete next[key];
      else if (value !== undefined) next[key] = value;
    }
    stored = next as SandboxSettings;
    return view() as unknown as PublicSettings;
  });
  const api = {
    getSettings: async () => view() as unknown as PublicSettings,
    appInfo: async () => ({ sandbox: status, containment: { kind: 'cgroup', detail: 'a cgroup' } }) as AppInfo,
    updateSettings,
  } as unknown as DroverApi;
  return { api, updateSettings };
}

async function renderSection(status: SandboxStatus, file: SandboxSettings = {}) {
  const { api, updateSettings } = fakeApi(status, file);
  const settings = new SettingsState(api);
  await settings.load();
  render(SandboxSection, { settings });
  return { settings, updateSettings };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) await Promise.resolve();
  flushSync();
}

afterEach(() => cleanup());

describe('Settings → Sandbox', () => {
  it('says the sandbox is on only where the machine has one and the setting is on', async () => {
    await renderSection(BUBBLEWRAP);
    const status = screen.getByTestId('settings-sandbox-status');
    expect(status.dataset.active).toBe('true');
    expect(status.textContent).toContain('On:');
    expect(status.textContent).toContain('bubblewrap, network through a proxy');
  });

  it('on a machine without one it says why, and claims nothing', async () => {
    await renderSection({ available: false, platform: 'win32', detail: 'no sandbox is available on win32' });
    const status = screen.getByTestId('settings-sandbox-status');
    expect(status.dataset.active).toBe('false');
    expect(status.dataset.available).toBe('false');
    expect(status.textContent).toContain('No sandbox on this machine: no sandbox is available on win32.');
    expect(status.textContent).toContain('the permission gate alone decides');
    expect(status.textContent).not.toContain('On:');
    // The Linux note is worded for Linux alone; it stays, quiet, elsewhere.
    expect(screen.getByTestId('sandbox-sockets-linux').classList.contains('linux')).toBe(false);
  });

  it('the three switches save their own key and show what was stored', async () => {
    const { updateSettings } = await renderSection(BUBBLEWRAP);
    const withoutAsking = screen.getByTestId('settings-sandbox-runWithoutAsking') as HTMLInputElement;
    expect(withoutAsking.closest('label')!.textContent).toContain('Run sandboxed commands without asking');
    expect(withoutAsking.closest('label')!.textContent).toContain('the sandbox alone then decides');
    expect(screen.getByTestId('settings-sandbox-operatorLines').closest('label')!.textContent).toContain(
      'Run my own ! and & lines in the sandbox',
    );
    expect(withoutAsking.checked).toBe(false);
    await fireEvent.click(withoutAsking);
    await settle();
    expect(updateSettings).toHaveBeenCalledExactlyOnceWith({ sandbox: { runWithoutAsking: true } });
    expect(withoutAsking.checked).toBe(true);

    const enabled = screen.getByTestId('settings-sandbox-enabled') as HTMLInputElement;
    await fireEvent.click(enabled);
    await settle();
    expect(updateSettings).toHaveBeenLastCalledWith({ sandbox: { enabled: false } });
    expect(enabled.checked).toBe(false);
    expect(screen.getByTestId('settings-sandbox-status').textContent).toContain('Off.');
  });

  it('adds a host to the list; a refused path shows the message naming the key, and loses nothing saved', async () => {
    const { settings, updateSettings } = await renderSection(BUBBLEWRAP, { denyRead: ['~/.ssh'] });
    const hosts = screen.getByTestId('sandbox-hosts-section');
    await fireEvent.input(within(hosts).getByTestId('sandbox-hosts-input'), { target: { value: 'api.example.com' } });
    await fireEvent.submit(within(hosts).getByTestId('sandbox-hosts-input').closest('form')!);
    await settle();
    expect(updateSettings).toHaveBeenLastCalledWith({
      sandbox: { allowedHosts: [...SANDBOX_DEFAULTS.allowedHosts, 'api.example.com'] },
    });
    const items = within(hosts)
      .getAllByTestId('sandbox-hosts-item')
      .map((item) => item.dataset.value);
    expect(items.at(-1)).toBe('api.example.com');

    const deny = screen.getByTestId('sandbox-deny-read-section');
    const input = within(deny).getByTestId('sandbox-deny-read-input') as HTMLInputElement;
    await fireEvent.input(input, { target: { value: 'relative/secrets' } });
    await fireEvent.submit(input.closest('form')!);
    await settle();
    expect(within(deny).getByTestId('sandbox-deny-read-error').textContent).toContain(
      'sandbox.denyRead.1: must be an absolute path or start with ~/',
    );
    // Nothing saved is lost: the list is the stored one, and the typed entry waits to be fixed.
    expect(
      within(deny)
        .getAllByTestId('sandbox-deny-read-item')
        .map((item) => item.dataset.value),
    ).toEqual(['~/.ssh']);
    expect(settings.settings?.sandbox.denyRead).toEqual(['~/.ssh']);
    expect(settings.settings?.sandbox.allowedHosts.at(-1)).toBe('api.example.com');
    expect(input.value).toBe('relative/secrets');
  });

  it('the writable folders and the sockets have their own lists; on Linux the socket note stands out', async () => {
    await renderSection(BUBBLEWRAP);
    expect(screen.getByTestId('sandbox-writable-block').textContent).toContain('Also writable (caches)');
    const sockets = screen.getByTestId('sandbox-sockets-block');
    expect(sockets.textContent).toContain('On Linux, allowing any socket allows all Unix sockets');
    expect(screen.getByTestId('sandbox-sockets-linux').classList.contains('linux')).toBe(true);
  });
});

describe('sandboxStatusText', () => {
  it('is active only with a sandbox on the machine and the setting on', () => {
    expect(sandboxStatusText(BUBBLEWRAP, true).active).toBe(true);
    expect(sandboxStatusText(BUBBLEWRAP, false).active).toBe(false);
    expect(sandboxStatusText({ ...BUBBLEWRAP, available: false }, true).active).toBe(false);
    expect(sandboxStatusText(null, true)).toMatchObject({ active: false, available: false });
  });
});
