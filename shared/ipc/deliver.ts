/**
 * Hands one event to one listener. An error the listener throws is reported (as an uncaught error
 * is, where the page has `reportError`; on the console elsewhere) and does not keep the events
 * that came with it in the same message from their listeners.
 */
export function deliverEvent(listener: (name: string, payload: unknown) => void, name: string, payload: unknown): void {
  try {
    listener(name, payload);
  } catch (error) {
    const report = (globalThis as { reportError?: (error: unknown) => void }).reportError;
    if (report) report(error);
    else console.error('Drover: an event listener failed:', error);
  }
}
