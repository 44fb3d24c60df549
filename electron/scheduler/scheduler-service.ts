import { DroverError } from '../../shared/ipc/errors.js';
import type { MessageSchedule } from '../../shared/schemas/message.js';
import type { AgentTool } from '../agent/tools.js';
import { titleFrom } from '../sessions/sessions-service.js';
import { readDefaultTask } from './default-task.js';
import { Scheduler, type ScheduledRun } from './scheduler.js';
import { ScheduleStore } from './schedule-store.js';
import { scheduleTools } from './schedule-tools.js';

export interface SchedulingDeps {
  dataDir: string;
  workingDir: string;
  sqliteBinding?: string | undefined;
  /** This Drover's random id: the lease holder's name. */
  holder: string;
  /** The scheduler's clock (a test's to move); Date by default. */
  clock?: { now(): number } | undefined;
  /** Look for due runs once a second (tests drive `tick` themselves). */
  ticking?: boolean | undefined;
  idle: (sessionId: string) => boolean;
  allowed: (sessionId: string) => boolean;
  sessionExists: (sessionId: string) => boolean;
  /** `byPerson`: the person asked for this run, so it draws nothing from the unattended budget. */
  submit: (sessionId: string, text: string, schedule: MessageSchedule, byPerson: boolean) => Promise<void>;
  createSession: (title: string) => string;
  note: (sessionId: string, text: string) => void;
  changed: (sessionId: string | null) => void;
  resumeWithoutAsking: () => boolean;
  log: (message: string) => void;
}

/**
 * Scheduling as the composition root wires it: the store opened (Drover still starts when it
 * cannot be, and every scheduling call says why), the service, its tools and its handlers' needs.
 */
export class Scheduling {
  readonly #scheduler: Scheduler | null;
  readonly #store: ScheduleStore | null;
  readonly #problem: string | null;

  constructor(deps: SchedulingDeps) {
    let store: ScheduleStore | null = null;
    let problem: string | null = null;
    try {
      store = ScheduleStore.open(deps.dataDir, deps.sqliteBinding ? { nativeBinding: deps.sqliteBinding } : {});
    } catch (error) {
      problem = (error as Error).message;
      deps.log(`scheduling is unavailable: ${problem}`);
    }
    this.#store = store;
    this.#problem = problem;
    this.#scheduler =
      store &&
      new Scheduler({
        store,
        clock: deps.clock ?? Date,
        holder: deps.holder,
        idle: deps.idle,
        allowed: deps.allowed,
        sessionExists: deps.sessionExists,
        run: (run: ScheduledRun) =>
          deps.submit(run.sessionId, run.text, { id: run.scheduleId, kind: run.kind, label: run.label }, run.byPerson),
        defaultTask: () => readDefaultTask(deps.workingDir, deps.dataDir),
        sessionForJob: (schedule) =>
          deps.createSession(titleFrom(`Scheduled: ${schedule.prompt || 'the default task'}`)),
        changed: deps.changed,
        resumeWithoutAsking: deps.resumeWithoutAsking,
        note: deps.note,
        log: deps.log,
      });
    if (this.#scheduler) {
      try {
        this.#scheduler.start();
        if (deps.ticking === false) this.#scheduler.stop();
      } catch (error) {
        deps.log(`the schedules left by the last run could not be read: ${(error as Error).message}`);
      }
    }
  }

  /** The scheduler; throws why it is not available. */
  get(): Scheduler {
    if (this.#scheduler) return this.#scheduler;
    throw new DroverError('unavailable', `Scheduling is unavailable: ${this.#problem ?? 'it is closed'}`);
  }

  /** The scheduler, or null when its database could not be opened. */
  get scheduler(): Scheduler | null {
    return this.#scheduler;
  }

  /** The model's scheduling tools; with no store, each call says why nothing can be scheduled. */
  tools(): AgentTool[] {
    return scheduleTools(() => this.get());
  }

  close(): void {
    this.#scheduler?.stop();
    this.#store?.close();
  }
}
