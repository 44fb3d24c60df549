import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmIntl, warmsInWorker } from '../shared/domain/intl-warm.js';
import { PAGE_SCRIPT } from '../shared/domain/page-script.js';

/** An Intl that records the formatters made, as [kind, options]. */
function recordingIntl() {
  const made: [string, unknown][] = [];
  const kind = (name: string) =>
    class {
      constructor(_locale: unknown, options?: unknown) {
        made.push([name, options ?? null]);
      }
      format(): string {
        return '';
      }
    };
  return { made, intl: { DateTimeFormat: kind('date'), NumberFormat: kind('number') } };
}

afterEach(() => vi.unstubAllGlobals());

describe('where the locale data is warmed', () => {
  it('uses a worker only where cores are to spare', () => {
    expect([1, 2, 3, 16].map(warmsInWorker)).toEqual([false, false, true, true]);
  });

  it('stays on the main thread where the browser does not say how many cores there are', () => {
    expect(warmsInWorker(undefined)).toBe(false);
  });
});

describe('the locale data', () => {
  it('is read in by one formatter of each kind the screen makes', () => {
    const { made, intl } = recordingIntl();
    vi.stubGlobal('Intl', intl);
    warmIntl();
    expect(made).toEqual([
      ['date', { hour: '2-digit', minute: '2-digit' }],
      ['date', { month: 'short', day: 'numeric' }],
      ['number', null],
    ]);
  });

  it("is never read in by the page's inline script, which runs as the page is parsed", () => {
    const { made, intl } = recordingIntl();
    const queued: (() => void)[] = [];
    const window = { sessionStorage: { getItem: () => 'token' } };
    const location = { protocol: 'http:', search: '?token=t', hash: '#/s/abc/tasks', host: '127.0.0.1:1' };
    const opened: string[] = [];
    class FakeSocket {
      constructor(url: string) {
        opened.push(url);
      }
    }
    new Function('window', 'location', 'navigator', 'setTimeout', 'Intl', 'WebSocket', PAGE_SCRIPT)(
      window,
      location,
      { hardwareConcurrency: 2 },
      (task: () => void) => queued.push(task),
      intl,
      FakeSocket,
    );
    for (const task of queued) task();
    expect(opened).toHaveLength(1); // the script did run
    expect(made).toEqual([]);
    expect(PAGE_SCRIPT).not.toMatch(/Intl|toLocale/);
  });
});
