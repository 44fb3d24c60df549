/**
 * Reading the locale's date and number data in. The first date or number formatter a page makes
 * costs its main thread 20 to 40 ms in a new browser profile; ICU keeps what it read for the whole
 * process, so once any thread of the page has made these, the page's own formatters cost it well
 * under a millisecond.
 *
 * The first screen does not wait for it (renderer/src/lib/state/locale.svelte.ts): where cores are
 * to spare a worker the page's first script starts (renderer/src/boot.ts) reads the data in beside
 * the page, and elsewhere the page does, once its first screen is up. On a 2-core machine, reading
 * it in as the page was parsed (a script in the page itself) took CPU from the compile of the
 * page's scripts: opening a big session in a new profile, the first screen came a mean 14.9 ± 9.7
 * and 22.5 ± 13.1 ms sooner without it, with 31 and 41 ms less CPU per open (16 and 12 interleaved
 * pairs of loads; issue 18).
 */

/** The date formats the screen makes (format.ts: clockTime, and the day of older messages). */
const DATE_FORMATS: readonly Intl.DateTimeFormatOptions[] = [
  { hour: '2-digit', minute: '2-digit' },
  { month: 'short', day: 'numeric' },
];

/** Makes and uses one formatter of each kind the screen uses. */
export function warmIntl(): void {
  const now = new Date();
  for (const options of DATE_FORMATS) new Intl.DateTimeFormat(undefined, options).format(now);
  new Intl.NumberFormat().format(12_345);
}

/**
 * Whether the warming runs in a worker: where the machine has more than two cores. A worker costs
 * CPU of its own (a thread, an isolate, a script fetched for it); with two cores that CPU is taken
 * from the compile the page waits for. Three interleaved runs of 14 to 40 loads each way on a
 * 2-core machine: the first screen came a median 11 to 22 ms sooner per pair without the worker,
 * and the machine spent 30 to 60 ms less CPU per open. With more cores the worker runs beside the
 * page and spares its main thread, as on a start whose code comes from the code cache (every start
 * of the desktop app after its first).
 */
export function warmsInWorker(cores: number | undefined): boolean {
  return typeof cores === 'number' && cores > 2;
}
