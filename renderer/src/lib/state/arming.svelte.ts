/**
 * How long the permission panel's answers stay disarmed after it shows (or shows the next
 * request) and after each keystroke made outside it: a click or an Enter meant for something
 * else lands on a disabled button instead of answering.
 */
export const ARM_MS = 700;

/** Armed once `ARM_MS` passed since the last `disarm()`; starts disarmed. */
export class ArmingState {
  readonly #delayMs: number;
  #armed = $state(false);
  /** Counts the disarms, so a progress bar can restart its sweep on each. */
  #round = $state(0);
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(delayMs = ARM_MS) {
    this.#delayMs = delayMs;
  }

  get armed(): boolean {
    return this.#armed;
  }

  get round(): number {
    return this.#round;
  }

  get delayMs(): number {
    return this.#delayMs;
  }

  /** Disarms now and arms again after the full delay (a later disarm starts it over). */
  disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#armed = false;
    this.#round++;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#armed = true;
    }, this.#delayMs);
  }

  /** Stops the clock; stays disarmed. */
  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armed = false;
  }
}
