import type { Schedule } from '@shared/schemas/schedule.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/**
 * A session's schedules and loops, and the machine's durable jobs, as the Schedules panel and the
 * resume guard show them (issue #16). `schedulesChanged` only says that something changed, so each
 * one reads the list again; the newest read wins.
 */
export class SchedulesState {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #own = $state.raw<readonly Schedule[]>([]);
  #durable = $state.raw<readonly Schedule[]>([]);
  #heldOwn = $state(false);
  #heldDurable = $state(false);
  #loaded = $state(false);
  #error = $state<string | null>(null);
  #actionError = $state<string | null>(null);
  #busy = $state<string | null>(null);
  #seq = 0;

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  /** The session's schedules and loops. */
  get own(): readonly Schedule[] {
    return this.#own;
  }

  get durable(): readonly Schedule[] {
    return this.#durable;
  }

  /** The session's loops (fixed and self-paced): what Esc stops. */
  get loops(): readonly Schedule[] {
    return this.#own.filter((schedule) => schedule.kind !== 'cron');
  }

  /** After a restart, the session's schedules (or the durable jobs) that wait for the person's word. */
  held(durable: boolean): readonly Schedule[] {
    return (durable ? this.#durable : this.#own).filter((schedule) => schedule.held);
  }

  get heldOwn(): boolean {
    return this.#heldOwn && this.held(false).length > 0;
  }

  get heldDurable(): boolean {
    return this.#heldDurable && this.held(true).length > 0;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  get error(): string | null {
    return this.#error;
  }

  /** Why the last action (pause, run now, delete, resume…) failed. */
  get actionError(): string | null {
    return this.#actionError;
  }

  /** The schedule (or 'held') whose action is on its way. */
  get busy(): string | null {
    return this.#busy;
  }

  start(): () => void {
    const off = this.#api.on('schedulesChanged', ({ sessionId }) => {
      if (sessionId === null || sessionId === this.#sessionId) void this.load();
    });
    void this.load();
    return () => {
      off();
      this.#seq++;
    };
  }

  async load(): Promise<void> {
    const seq = ++this.#seq;
    try {
      const [own, durable] = await Promise.all([
        this.#api.listSchedules({ sessionId: this.#sessionId }),
        this.#api.listDurableJobs({}),
      ]);
      if (seq !== this.#seq) return;
      this.#own = own.schedules;
      this.#heldOwn = own.held;
      this.#durable = durable.schedules;
      this.#heldDurable = durable.held;
      this.#loaded = true;
      this.#error = null;
    } catch (error) {
      if (seq !== this.#seq) return;
      this.#error = `Could not read the schedules: ${errorMessage(error)}`;
    }
  }

  pause(id: string, paused: boolean): Promise<boolean> {
    return this.#act(id, () => this.#api.pauseSchedule({ id, paused }));
  }

  runNow(id: string): Promise<boolean> {
    return this.#act(id, () => this.#api.runScheduleNow({ id }));
  }

  remove(id: string): Promise<boolean> {
    return this.#act(id, () => this.#api.deleteSchedule({ id }));
  }

  /** The resume guard's answers, for the session's schedules or (durable) the machine's jobs. */
  resumeHeld(durable: boolean): Promise<boolean> {
    return this.#act('held', () => this.#api.resumeHeld({ sessionId: durable ? null : this.#sessionId }));
  }

  pauseHeld(durable: boolean): Promise<boolean> {
    return this.#act('held', () => this.#api.pauseHeld({ sessionId: durable ? null : this.#sessionId }));
  }

  /** `/loop …` from the composer; answers why it failed, or null. */
  async startLoop(args: string): Promise<string | null> {
    try {
      await this.#api.startLoop({ sessionId: this.#sessionId, args });
      await this.load();
      return null;
    } catch (error) {
      return `Could not start the loop: ${errorMessage(error)}`;
    }
  }

  /** Esc: the session's loops end. */
  stopLoops(): Promise<boolean> {
    return this.#act('loops', () => this.#api.stopLoops({ sessionId: this.#sessionId }));
  }

  async #act(key: string, action: () => Promise<unknown>): Promise<boolean> {
    this.#busy = key;
    this.#actionError = null;
    try {
      await action();
      await this.load();
      return true;
    } catch (error) {
      this.#actionError = errorMessage(error);
      return false;
    } finally {
      this.#busy = null;
    }
  }
}
