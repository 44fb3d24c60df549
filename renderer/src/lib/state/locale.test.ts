// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import type { Message } from '@shared/contract.js';

/**
 * The first screen is built without the locale's data (locale.svelte.ts). Each test takes fresh
 * modules, so each starts with the locale not in.
 */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** An Intl whose date and number formatters count how many the page made. */
function countingIntl() {
  const made = { date: 0, number: 0 };
  class DateTimeFormat extends Intl.DateTimeFormat {
    constructor(...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      super(...args);
      made.date++;
    }
  }
  class NumberFormat extends Intl.NumberFormat {
    constructor(...args: ConstructorParameters<typeof Intl.NumberFormat>) {
      super(...args);
      made.number++;
    }
  }
  vi.stubGlobal(
    'Intl',
    Object.create(Intl, { DateTimeFormat: { value: DateTimeFormat }, NumberFormat: { value: NumberFormat } }),
  );
  return made;
}

const AT = '2026-03-01T14:05:00.000Z';
const message = (patch: Partial<Message> = {}): Message => ({
  id: 1,
  sessionId: 's1',
  role: 'user',
  text: 'hello',
  taskId: null,
  toolName: null,
  toolCallId: null,
  toolArgs: null,
  toolResult: null,
  display: null,
  taskSnapshot: null,
  status: 'done',
  automated: false,
  schedule: null,
  createdAt: AT,
  ...patch,
});

describe('the locale on the first screen', () => {
  it('is not read in to build a message: its time shows, as the locale writes it, once the locale is in', async () => {
    const made = countingIntl();
    const { default: MessageItem } = await import('../../components/session/MessageItem.svelte');
    const locale = await import('./locale.svelte.js');
    render(MessageItem, { message: message(), now: Date.parse(AT) });
    const time = screen.getByText('hello').closest('li')!.querySelector('time')!;
    expect(screen.getByText('hello')).toBeTruthy();
    expect(time.getAttribute('datetime')).toBe(AT);
    expect(time.textContent).toBe('');
    expect(made).toEqual({ date: 0, number: 0 });

    locale.loadLocale();
    flushSync();
    const expected = new Date(AT).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    expect(time.textContent).toBe(expected);
    expect(made.date).toBeGreaterThan(0);
  });

  it('writes counts as plain digits until it is in, then as the locale groups them', async () => {
    const { formatCount, messageTime, relativeTime, clockTime } = await import('../format.js');
    const locale = await import('./locale.svelte.js');
    const made = countingIntl();
    const longAgo = '2020-05-04T10:00:00.000Z';
    expect([formatCount(12_345), clockTime(new Date(AT)), messageTime(longAgo, Date.parse(AT))]).toEqual([
      '12345',
      '',
      '',
    ]);
    expect(relativeTime(longAgo, Date.parse(AT))).toBe('');
    // What needs no locale data is written at once.
    expect(relativeTime(AT, Date.parse(AT) + 5 * 60_000)).toBe('5 min ago');
    expect(made).toEqual({ date: 0, number: 0 });
    locale.loadLocale();
    expect(formatCount(12_345)).toBe((12_345).toLocaleString());
    expect(messageTime(longAgo, Date.parse(AT))).toContain(clockTime(new Date(longAgo)));
    expect(relativeTime(longAgo, Date.parse(AT))).not.toBe('');
  });

  it('comes in at the first idle moment after the first screen, not before it', async () => {
    const { loadLocaleAfter, localeReady } = await import('./locale.svelte.js');
    const idle: { run: () => void; timeout: number }[] = [];
    const scope = {
      requestIdleCallback: (run: () => void, options?: { timeout: number }) =>
        idle.push({ run, timeout: options!.timeout }),
      setTimeout: () => {
        throw new Error('not used where the page has requestIdleCallback');
      },
    };
    let shown!: () => void;
    loadLocaleAfter(new Promise<void>((resolve) => (shown = resolve)), null, scope);
    await Promise.resolve();
    expect(idle).toEqual([]);
    expect(localeReady()).toBe(false);
    shown();
    await vi.waitFor(() => expect(idle).toHaveLength(1));
    expect(idle[0]!.timeout).toBeGreaterThan(0);
    expect(localeReady()).toBe(false);
    idle[0]!.run();
    expect(localeReady()).toBe(true);
  });

  it('comes in at once where a worker read the data in, even before the first screen', async () => {
    const { loadLocaleAfter, localeReady } = await import('./locale.svelte.js');
    loadLocaleAfter(new Promise<void>(() => {}), Promise.resolve(), { setTimeout: () => 0 });
    await vi.waitFor(() => expect(localeReady()).toBe(true));
  });

  it('comes in after a first screen that failed too, through a timer where the page has no idle callback', async () => {
    const { loadLocaleAfter, localeReady } = await import('./locale.svelte.js');
    const timers: (() => void)[] = [];
    loadLocaleAfter(Promise.reject(new Error('the host went away')), null, {
      setTimeout: (run: () => void) => timers.push(run),
    });
    await vi.waitFor(() => expect(timers).toHaveLength(1));
    timers[0]!();
    expect(localeReady()).toBe(true);
  });
});
