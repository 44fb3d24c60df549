/**
 * Reading the locale's date and number data into the page before the app needs it. The first date
 * or number formatter a page makes costs its main thread 25 to 35 ms in a new browser profile, and
 * the first screen makes both (renderer/src/lib/format.ts). ICU keeps what it read for the whole
 * process, so once any thread of the page has made these, the page's own formatters cost it well
 * under a millisecond.
 *
 * Where it runs depends on the cores (warmsInWorker): with cores to spare, in a worker the page's
 * first script starts (renderer/src/boot.ts); on two or fewer, on the page's main thread, from a
 * script in the page itself (PAGE_WARM_SCRIPT), in a task of its own queued as the page is parsed.
 * The main thread then has nothing else to do: it waits for the page's scripts and stylesheets to
 * arrive, some 25 ms on a first open, into which the warming fits. Warmed from the page's first
 * module instead, it ran once those had come, while the app's code waited behind it: opening a big
 * session in a new profile on a 2-core machine, the first screen came a mean 17.8 ± 6.0 ms sooner
 * with the page's own script (20 interleaved pairs of loads; issue 18).
 */

/** The date formats the first screen makes (format.ts: clockTime, and the day of older messages). */
const DATE_FORMATS: readonly Intl.DateTimeFormatOptions[] = [
  { hour: '2-digit', minute: '2-digit' },
  { month: 'short', day: 'numeric' },
];

/** Makes and uses one formatter of each kind the first screen uses. */
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

/**
 * The second part of the page's own script (PAGE_SCRIPT in page-script.ts, index.html's one inline
 * script, allowed by its hash: PAGE_SCRIPT_SOURCE in electron/host/static-files.ts): on two cores or fewer,
 * or where the browser does not say, it queues warmIntl as a task of its own. Written as a plain
 * script, not a module, so it runs as the page is parsed, and made from warmIntl's own formats.
 */
export const PAGE_WARM_SCRIPT =
  'if(!(navigator.hardwareConcurrency>2))setTimeout(function(){var d=new Date();' +
  DATE_FORMATS.map((options) => `new Intl.DateTimeFormat(undefined,${JSON.stringify(options)}).format(d);`).join('') +
  'new Intl.NumberFormat().format(12345)},0)';
