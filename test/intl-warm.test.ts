import { afterEach, describe, expect, it, vi } from 'vitest';
import { PAGE_WARM_SCRIPT, warmIntl, warmsInWorker } from '../shared/domain/intl-warm.js';

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

describe("the page's own script", () => {
  /** Runs the script as the page would, with this many cores: the formatters its queued task makes, or null when it queues none. */
  function run(cores: number | undefined): [string, unknown][] | null {
    const { made, intl } = recordingIntl();
    const queued: (() => void)[] = [];
    const script = new Function('navigator', 'setTimeout', 'Intl', PAGE_WARM_SCRIPT) as (
      navigator: { hardwareConcurrency?: number },
      setTimeout: (task: () => void, ms: number) => void,
      intl: unknown,
    ) => void;
    script(cores === undefined ? {} : { hardwareConcurrency: cores }, (task) => queued.push(task), intl);
    if (queued.length === 0) return null;
    expect(made).toEqual([]); // nothing before its own task
    expect(queued).toHaveLength(1);
    queued[0]!();
    return made;
  }

  it('warms on the main thread exactly where no worker does, the same formatters warmIntl makes', () => {
    const { made, intl } = recordingIntl();
    vi.stubGlobal('Intl', intl);
    warmIntl();
    expect(made.map(([name]) => name)).toEqual(['date', 'date', 'number']);
    for (const cores of [undefined, 1, 2, 3, 8])
      expect(run(cores), String(cores)).toEqual(warmsInWorker(cores) ? null : made);
  });
});
