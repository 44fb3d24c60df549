// How Drover's process is told to stop, and what it must survive while it stops.

/**
 * Signals that stop Drover, its tasks first: its terminal closed (SIGHUP), Ctrl+C there (SIGINT),
 * `kill` or a process manager (SIGTERM).
 */
export const STOP_SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;

/** Marks a stream already handled, across copies of this module (tests load the app again and again). */
const HANDLED = Symbol.for('drover.dropUnwritableOutput');

/**
 * A terminal that was closed fails every later write to it (EIO), and a pipe whose reader went
 * away, every write to it (EPIPE). Node reports either as an 'error' on process.stdout or stderr,
 * which, with nobody listening, ends the process: after a hangup, the next log line would end
 * Drover in the middle of stopping its tasks. What cannot be written is dropped instead.
 */
export function dropUnwritableOutput(): void {
  for (const stream of [process.stdout, process.stderr] as (NodeJS.WriteStream & { [HANDLED]?: true })[]) {
    if (stream[HANDLED]) continue;
    stream[HANDLED] = true;
    stream.on('error', () => {});
  }
}
