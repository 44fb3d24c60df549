/** The current time, ticking slowly so relative times ("5 min ago") stay true. */
export class ClockState {
  readonly #intervalMs: number;
  #now = $state(Date.now());

  constructor(intervalMs = 30_000) {
    this.#intervalMs = intervalMs;
  }

  get now(): number {
    return this.#now;
  }

  start(): () => void {
    this.#now = Date.now();
    const timer = setInterval(() => {
      this.#now = Date.now();
    }, this.#intervalMs);
    return () => clearInterval(timer);
  }
}
