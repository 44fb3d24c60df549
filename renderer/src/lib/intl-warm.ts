/**
 * Reads the locale's date and number data into the page before the app needs it: the first date
 * or number formatter a page makes costs its main thread 25 to 35 ms in a new browser profile (the
 * engine then keeps that data for the page), and the first screen makes both (format.ts).
 *
 * boot.ts runs this in a task of its own while the app's chunks still download and compile, a
 * stretch in which the page's main thread mostly waits (V8 compiles the first-screen chunks on a
 * background thread). A worker used to do it on another thread: it cost the machine more CPU per
 * first open (a thread, an isolate and a script fetched for it), and on two cores that CPU was taken
 * from the same compile the page was waiting for (issue 18). Opening the big session in a new
 * profile, three runs of 14 to 40 loads each way, interleaved: the first screen came a median 11
 * to 22 ms sooner per pair of loads, and the machine spent 30 to 60 ms less CPU per open.
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
