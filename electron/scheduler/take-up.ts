import type { SchedulerDeps } from './scheduler.js';
import type { StoredSchedule } from './schedule-store.js';
import { takeUp } from './schedule-rules.js';

type TakeUpDeps = Pick<
  SchedulerDeps,
  'store' | 'clock' | 'sessionExists' | 'resumeWithoutAsking' | 'changed' | 'log' | 'timeZone'
>;

/**
 * What the last run left, taken up at start: what ended while Drover was closed is dropped, what
 * was missed is moved on, and (unless a setting says not to) the rest is held for the person's
 * word (the resume guard). Until it has been read nothing fires: the guard fails closed.
 */
export class TakeUp {
  /** The schedules held, by id, with their owner (null: a durable job). */
  readonly held = new Map<string, string | null>();
  readonly #deps: TakeUpDeps;
  /** When this run started: a late take-up holds only what the last run left. */
  #startedAt = 0;
  #done = false;
  #logged = false;

  constructor(deps: TakeUpDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#startedAt = this.#deps.clock.now();
    this.#run();
  }

  /** Whether what the last run left has been read and held; tries again when it has not. */
  ready(): boolean {
    return this.#done || this.#run();
  }

  /**
   * Reads what the last run left. Each schedule is held before anything else is done with it, so
   * one whose take-up fails still waits for the person; one that was paused stays paused, not held.
   * When the store cannot be read, nothing fires, and the next tick tries again.
   */
  #run(): boolean {
    const now = this.#deps.clock.now();
    const ask = !this.#deps.resumeWithoutAsking();
    let found: StoredSchedule[];
    try {
      found = this.#deps.store.all();
    } catch (error) {
      if (!this.#logged)
        this.#deps.log?.(`the schedules left by the last run could not be read: ${(error as Error).message}`);
      this.#logged = true;
      return false;
    }
    const changed = new Set<string | null>();
    for (const schedule of found) {
      // Made in this run (typed while the store could not be read): not the last run's, not held.
      if (schedule.createdAt >= this.#startedAt) continue;
      if (ask && !schedule.paused) {
        this.held.set(schedule.id, schedule.sessionId);
        changed.add(schedule.sessionId);
      }
      try {
        const gone = schedule.sessionId !== null && !this.#deps.sessionExists(schedule.sessionId);
        const outcome = gone ? 'delete' : takeUp(schedule, now, this.#deps.timeZone);
        if (outcome === 'delete') {
          this.#deps.store.delete(schedule.id);
          this.held.delete(schedule.id);
        } else if (outcome !== 'kept') this.#deps.store.update(schedule.id, outcome);
        if (outcome !== 'kept') changed.add(schedule.sessionId);
      } catch (error) {
        this.#deps.log?.(`schedule ${schedule.id} could not be taken up: ${(error as Error).message}`);
      }
    }
    this.#done = true;
    for (const owner of changed) this.#deps.changed(owner);
    return true;
  }
}
