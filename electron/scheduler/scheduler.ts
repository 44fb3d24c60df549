import { DroverError } from '../../shared/ipc/errors.js';
import { MAX_SCHEDULES_PER_SESSION, type Schedule, type ScheduleKind } from '../../shared/schemas/schedule.js';
import { randomId } from '../core/ids.js';
import { parseLoop } from './intervals.js';
import {
  publicSchedule,
  type NewSchedule,
  type SchedulePatch,
  type ScheduleStore,
  type StoredSchedule,
} from './schedule-store.js';
import { afterRun, describeSeconds, formatLocal, nextAfter } from './schedule-rules.js';
import { TakeUp } from './take-up.js';
import { afterPass, cronRow, loopRow, type CronRequest } from './schedule-rows.js';

export { describeSeconds, formatLocal };

/** The scheduler looks for due runs this often. */
export const TICK_MS = 1000;
/** A durable job's run is leased for this long, and the lease renewed while the run goes on. */
export const LEASE_MS = 60_000;

/** One run handed to the agent: the text, and what it came from. */
export interface ScheduledRun {
  sessionId: string;
  scheduleId: string;
  kind: ScheduleKind;
  label: string;
  /** The schedule's prompt, or the default task as read now. */
  text: string;
  /**
   * The person asked for this run (a loop's first pass, Run now): it does not wait for, or draw
   * from, the session's budget for unattended turns.
   */
  byPerson: boolean;
}

export interface SchedulerDeps {
  store: ScheduleStore;
  clock: { now(): number };
  /** This process, as a lease holder (the instance's random id). */
  holder: string;
  /** No turn runs or waits in the session: a run may start. */
  idle: (sessionId: string) => boolean;
  /** The session's budget for unattended turns has room (when spent, due runs wait for the person). */
  allowed?: (sessionId: string) => boolean;
  sessionExists: (sessionId: string) => boolean;
  /** Submits the run as an automated turn; resolves when that turn has ended. */
  run: (run: ScheduledRun) => Promise<void>;
  /** The default maintenance task (loop.md, read again at every run). */
  defaultTask: () => string;
  /** A session for a durable job whose own is gone: its runs go there. */
  sessionForJob: (schedule: StoredSchedule) => string;
  /** A session's schedules (or, with null, the durable jobs) changed. */
  changed: (sessionId: string | null) => void;
  /** After a restart, schedules wait for the person (the resume guard) unless this says not to. */
  resumeWithoutAsking: () => boolean;
  /** Tells the conversation something about its loops (a note in the transcript). */
  note: (sessionId: string, text: string) => void;
  timeZone?: string;
  log?: (message: string) => void;
}

/** What a restart found, per conversation: what waits for the person's word. */
export interface HeldSchedules {
  sessionId: string | null;
  schedules: Schedule[];
}

/**
 * Every schedule, loop and durable job, in one service: persisted in scheduler.sqlite, looked at
 * once a second, a due run submitted only while its session has no turn running or waiting (one
 * due run waits for the turn; missed runs never pile up), a durable job's run leased so that no
 * two processes fire it.
 */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  /** What the last run left: read at start, and held for the person's word (the resume guard). */
  readonly #takeUp: TakeUp;
  /** The schedules the restart found, waiting for the person's word, by id (owner as value). */
  readonly #held: Map<string, string | null>;
  readonly #running = new Set<string>();
  /**
   * Runs the person asked for (a typed `/loop`'s first pass, Run now), by schedule, with the time
   * that ask set: only a run at that very time is theirs (a pause or anything else that moves it
   * makes the next run an unattended one again).
   */
  readonly #byPerson = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#takeUp = new TakeUp(deps);
    this.#held = this.#takeUp.held;
  }

  /** Takes up what the last run left (drops what ended while closed, holds the rest), then ticks. */
  start(): void {
    this.#takeUp.start();
    this.#timer = setInterval(() => void this.tick(), TICK_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** What waits for the person's word after the restart (empty once they answered). */
  held(): HeldSchedules[] {
    const owners = new Set(this.#held.values());
    return [...owners]
      .map((sessionId) => ({ sessionId, schedules: this.#heldOf(sessionId).map((s) => publicSchedule(s, true)) }))
      .filter((entry) => entry.schedules.length > 0);
  }

  /** Whether some of a session's schedules (or, null, durable jobs) wait for the person's word. */
  isHeld(sessionId: string | null): boolean {
    return this.#heldOf(sessionId).length > 0;
  }

  /** The resume guard's answers: run them again, or pause them all (they stay, paused). */
  resumeHeld(sessionId: string | null): Schedule[] {
    const now = this.#now();
    for (const schedule of this.#heldOf(sessionId)) {
      this.#held.delete(schedule.id);
      // One run for the window missed while waiting, never a burst: it is due now. A missed
      // durable one-off still waits for its own "Run now".
      if (!schedule.paused && schedule.nextFireAt !== null && schedule.nextFireAt < now && schedule.recurring)
        this.#deps.store.update(schedule.id, { nextFireAt: now });
    }
    this.#deps.changed(sessionId);
    return this.list(sessionId);
  }

  pauseHeld(sessionId: string | null): Schedule[] {
    for (const schedule of this.#heldOf(sessionId)) {
      this.#deps.store.update(schedule.id, { paused: true });
      this.#held.delete(schedule.id);
    }
    this.#deps.changed(sessionId);
    return this.list(sessionId);
  }

  /** A session's schedules and loops, or (null) the durable jobs. */
  list(sessionId: string | null): Schedule[] {
    return this.#owned(sessionId).map((schedule) => publicSchedule(schedule, this.#held.has(schedule.id)));
  }

  get(id: string): Schedule {
    const schedule = this.#deps.store.get(id);
    if (!schedule) throw new DroverError('not_found', `No schedule "${id}"`, { path: 'id' });
    return publicSchedule(schedule, this.#held.has(id));
  }

  /**
   * cron_create: a schedule in the conversation (or, durable, on the machine). The cron is checked
   * first; the answer is the schedule.
   */
  create(sessionId: string, input: CronRequest): StoredSchedule {
    return this.#insert(cronRow(this.#newId(), sessionId, input, this.#now(), this.#deps.timeZone));
  }

  /**
   * `/loop …` typed by the person: a fixed loop on a clean cron step, or a self-paced loop (one per
   * conversation: a new one replaces the old). Its first pass runs at once.
   */
  startLoop(sessionId: string, args: string): { schedule: StoredSchedule; confirmation: string } {
    const request = parseLoop(args);
    if (request.kind === 'invalid') throw new DroverError('invalid_input', request.reason, { path: 'args' });
    const made = loopRow(this.#newId(), sessionId, request, this.#now(), this.#deps.timeZone);
    // One self-paced loop per conversation: a new one replaces the old.
    const replaced =
      request.kind === 'self-paced' ? this.#owned(sessionId).filter((schedule) => schedule.kind === 'self_paced') : [];
    for (const old of replaced) this.#deps.store.delete(old.id);
    const schedule = this.#insert(made.row);
    if (schedule.nextFireAt !== null) this.#byPerson.set(schedule.id, schedule.nextFireAt);
    return { schedule, confirmation: made.confirmation(replaced.map((old) => old.id)) };
  }

  delete(id: string, sessionId?: string): StoredSchedule {
    const schedule = this.#deps.store.get(id);
    if (
      !schedule ||
      (sessionId !== undefined && schedule.sessionId !== sessionId && schedule.runSessionId !== sessionId)
    )
      throw new DroverError('not_found', `No schedule "${id}" in this conversation`, { path: 'id' });
    this.#deps.store.delete(id);
    this.#byPerson.delete(id);
    this.#deps.changed(schedule.sessionId);
    return schedule;
  }

  /** Esc: the conversation's loops (fixed and self-paced) end; reminders and cron schedules stay. */
  stopLoops(sessionId: string): StoredSchedule[] {
    const loops = this.#owned(sessionId).filter((schedule) => schedule.kind !== 'cron');
    for (const loop of loops) this.#deps.store.delete(loop.id);
    if (loops.length > 0) this.#deps.changed(sessionId);
    return loops;
  }

  /** A self-paced iteration chooses its next check; it replaces the pending one. */
  loopNext(sessionId: string, delaySeconds: number, reason: string): { schedule: StoredSchedule | null; text: string } {
    const loop = this.#selfPaced(sessionId);
    const now = this.#now();
    const at = now + delaySeconds * 1000;
    if (loop.expiresAt !== null && at >= loop.expiresAt) {
      this.#deps.store.delete(loop.id);
      this.#deps.changed(sessionId);
      return {
        schedule: null,
        text: `Loop ${loop.id} reached its 7-day limit and has ended; no further check is scheduled.`,
      };
    }
    const schedule = this.#deps.store.update(loop.id, { nextFireAt: at, safetyCheck: false, nextReason: reason })!;
    this.#deps.changed(sessionId);
    return {
      schedule,
      text: `Next check of loop ${loop.id} in ${describeSeconds(delaySeconds)}, at ${formatLocal(at, this.#deps.timeZone)} (${reason}). End your turn now.`,
    };
  }

  /** A self-paced iteration ends its loop (its task is done). */
  loopStop(sessionId: string): StoredSchedule {
    const loop = this.#selfPaced(sessionId);
    this.#deps.store.delete(loop.id);
    this.#deps.changed(sessionId);
    return loop;
  }

  pause(id: string, paused: boolean): Schedule {
    const schedule = this.#deps.store.get(id);
    if (!schedule) throw new DroverError('not_found', `No schedule "${id}"`, { path: 'id' });
    const patch: SchedulePatch = { paused };
    // Resumed after its time went by: it runs at its next time from now, never to catch up.
    if (!paused && schedule.nextFireAt !== null && schedule.nextFireAt < this.#now() && schedule.recurring)
      patch.nextFireAt = nextAfter(schedule, this.#now(), this.#deps.timeZone);
    this.#deps.store.update(id, patch);
    this.#held.delete(id);
    this.#deps.changed(schedule.sessionId);
    return this.get(id);
  }

  /** "Run now": due at once (waiting only for the session's turn); a durable one-shot confirmed. */
  runNow(id: string): Schedule {
    const schedule = this.#deps.store.get(id);
    if (!schedule) throw new DroverError('not_found', `No schedule "${id}"`, { path: 'id' });
    const now = this.#now();
    this.#deps.store.update(id, { nextFireAt: now, needsConfirmation: false, paused: false });
    // The person's own act answers the resume guard for this one, and spends no unattended budget.
    this.#held.delete(id);
    this.#byPerson.set(id, now);
    this.#deps.changed(schedule.sessionId);
    return this.get(id);
  }

  /** A deleted conversation's schedules go with it. */
  forgetSession(sessionId: string): void {
    for (const [id, owner] of this.#held) if (owner === sessionId) this.#held.delete(id);
    for (const schedule of this.#deps.store.forSession(sessionId)) this.#byPerson.delete(schedule.id);
    if (this.#deps.store.deleteSession(sessionId) > 0) this.#deps.changed(sessionId);
  }

  /** One look for due runs: each submitted when its session is free, at most once. */
  async tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      if (!this.#takeUp.ready()) return;
      const now = this.#now();
      for (const schedule of this.#deps.store.due(now)) {
        if (this.#held.has(schedule.id) || this.#running.has(schedule.id)) continue;
        try {
          this.#fire(schedule, now);
        } catch (error) {
          // One schedule that cannot run never keeps the others from theirs.
          this.#deps.log?.(`schedule ${schedule.id} could not run: ${(error as Error).message}`);
        }
      }
    } catch (error) {
      this.#deps.log?.(`the scheduler could not look for due runs: ${(error as Error).message}`);
    } finally {
      this.#ticking = false;
    }
  }

  #fire(schedule: StoredSchedule, now: number): void {
    const target = schedule.sessionId ?? this.#jobSession(schedule);
    const byPerson = this.#byPerson.get(schedule.id) === schedule.nextFireAt;
    // A mark whose time moved on is not the person's any more.
    if (!byPerson) this.#byPerson.delete(schedule.id);
    if (!this.#deps.idle(target) || !(byPerson || (this.#deps.allowed?.(target) ?? true))) return;
    const claimed = this.#deps.store.claim(schedule, this.#deps.holder, now, LEASE_MS, (current) =>
      afterRun(current, now, this.#deps.timeZone),
    );
    if (!claimed) return;
    this.#byPerson.delete(schedule.id);
    this.#running.add(claimed.id);
    this.#deps.changed(claimed.sessionId);
    const renew = setInterval(
      () => this.#deps.store.renewLease(claimed.id, this.#deps.holder, this.#now() + LEASE_MS),
      LEASE_MS / 3,
    );
    renew.unref();
    const text = claimed.prompt || this.#deps.defaultTask();
    const done = (result: string) => {
      clearInterval(renew);
      this.#running.delete(claimed.id);
      try {
        this.#deps.store.releaseLease(claimed.id, this.#deps.holder);
        if (this.#deps.store.get(claimed.id)) this.#deps.store.update(claimed.id, { lastResult: result });
        if (claimed.kind === 'self_paced') this.#iterationEnded(claimed.id);
        this.#deps.changed(claimed.sessionId);
      } catch (error) {
        this.#deps.log?.(`schedule ${claimed.id}: ${(error as Error).message}`);
      }
    };
    let running: Promise<void>;
    try {
      running = this.#deps.run({
        sessionId: target,
        scheduleId: claimed.id,
        kind: claimed.kind,
        label: claimed.label,
        text,
        byPerson,
      });
    } catch (error) {
      // Refused before it started (the transcript could not be written): the lease and the loop go on.
      running = Promise.reject(error as Error);
    }
    running.then(
      () => done('ran'),
      (error: unknown) => done(`failed: ${(error as Error).message}`),
    );
  }

  /** A self-paced iteration ended: it chose its next check, or gets one safety check, or the loop ends. */
  #iterationEnded(id: string): void {
    const loop = this.#deps.store.get(id);
    if (!loop || loop.nextFireAt !== null) return;
    const { change, note } = afterPass(loop, this.#now());
    if (change === 'delete') this.#deps.store.delete(id);
    else this.#deps.store.update(id, change);
    if (note) this.#deps.note(loop.sessionId!, note);
  }

  #insert(row: NewSchedule): StoredSchedule {
    if (!this.#deps.store.insert(row, MAX_SCHEDULES_PER_SESSION))
      throw new DroverError(
        'conflict',
        `This conversation already has ${MAX_SCHEDULES_PER_SESSION} schedules, the most it may hold; delete one (cron_delete) first.`,
      );
    const stored = this.#deps.store.get(row.id)!;
    this.#deps.changed(row.sessionId);
    return stored;
  }

  #jobSession(schedule: StoredSchedule): string {
    if (schedule.runSessionId && this.#deps.sessionExists(schedule.runSessionId)) return schedule.runSessionId;
    const sessionId = this.#deps.sessionForJob(schedule);
    this.#deps.store.update(schedule.id, { runSessionId: sessionId });
    return sessionId;
  }

  #selfPaced(sessionId: string): StoredSchedule {
    const loop = this.#owned(sessionId).find((schedule) => schedule.kind === 'self_paced');
    if (!loop)
      throw new DroverError(
        'conflict',
        'No self-paced loop runs in this conversation. One starts only when the person types /loop without an interval.',
      );
    return loop;
  }

  /** The owner's schedules that wait for the person's word. */
  #heldOf(sessionId: string | null): StoredSchedule[] {
    return this.#owned(sessionId).filter((schedule) => this.#held.has(schedule.id));
  }

  #owned(sessionId: string | null): StoredSchedule[] {
    return sessionId === null ? this.#deps.store.durable() : this.#deps.store.forSession(sessionId);
  }

  #newId(): string {
    for (;;) {
      const id = randomId(8);
      if (!this.#deps.store.get(id)) return id;
    }
  }

  #now(): number {
    return this.#deps.clock.now();
  }
}
