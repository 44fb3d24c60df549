/**
 * How long the permission panel's answers stay disarmed after it shows (or shows the next
 * request) and after each keystroke not meant for it: a click or an Enter meant for something
 * else lands on a disabled button instead of answering.
 */
export const ARM_MS = 700;

/**
 * Armed once `ARM_MS` passed since the last `disarm()`; starts disarmed. The arming belongs to
 * one subject (a request id): `armedFor` is false for any other, so a request never inherits the
 * arming of the one it replaced, not even for the moment before `start` is called for it.
 */
export class ArmingState {
  #armed = $state(false);
  #subject = $state<string | null>(null);
  /** Counts the disarms, so a progress bar can restart its sweep on each. */
  #round = $state(0);
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** Armed, and for this subject. */
  armedFor(subject: string | null | undefined): boolean {
    return this.#armed && subject != null && subject === this.#subject;
  }

  get round(): number {
    return this.#round;
  }

  /** Binds the arming to a new subject, disarmed; it arms after the full delay. */
  start(subject: string): void {
    this.#subject = subject;
    this.disarm();
  }

  /** Disarms now and arms again after the full delay (a later disarm starts it over). */
  disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#armed = false;
    this.#round++;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#armed = true;
    }, ARM_MS);
  }

  /** Stops the clock and forgets the subject; stays disarmed. */
  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armed = false;
    this.#subject = null;
  }
}
