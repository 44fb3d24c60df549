/**
 * Reads the locale's date and number data into the page before the app needs it: the first date
 * or number formatter a page makes costs its main thread 25 to 35 ms in a new browser profile, and
 * the first screen makes both (format.ts). ICU keeps what it read for the whole process, so once
 * any thread of the page has made these, the page's own formatters cost it well under a millisecond.
 */
export function warmIntl(): void {
  const now = new Date();
  for (const options of [
    { hour: '2-digit', minute: '2-digit' },
    { month: 'short', day: 'numeric' },
  ] as const)
    new Intl.DateTimeFormat(undefined, options).format(now);
  new Intl.NumberFormat().format(12_345);
}

/**
 * Where the warming runs: on a thread of its own (a worker) where the machine has cores to spare,
 * else on the page's main thread, in a task of its own while the app's chunks still download and
 * compile, a stretch in which the main thread mostly waits (V8 compiles the first-screen chunks
 * on a background thread).
 *
 * A worker costs the machine CPU of its own (a thread, an isolate, a script fetched for it). With
 * two cores that CPU is taken from the compile the page waits for (issue 18): opening the big
 * session in a new profile on a two-core machine, three interleaved runs of 14 to 40 loads each
 * way, the first screen came a median 11 to 22 ms sooner per pair of loads with the main-thread
 * warming, and the machine spent 30 to 60 ms less CPU per open. With more cores the worker runs
 * beside the page, and it also spares the main thread where that does not wait: a start whose
 * code comes from the code cache (every start of the desktop app after its first).
 */
export function warmsInWorker(cores: number | undefined): boolean {
  return typeof cores === 'number' && cores > 2;
}
