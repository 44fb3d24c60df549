import type { DroverContract } from '../../shared/contract.js';
import type { Handlers } from '../ipc/router.js';
import type { Scheduler } from './scheduler.js';
import { publicSchedule } from './schedule-store.js';

type ScheduleHandlers = Pick<
  Handlers<DroverContract>,
  | 'listSchedules'
  | 'listDurableJobs'
  | 'deleteSchedule'
  | 'pauseSchedule'
  | 'runScheduleNow'
  | 'startLoop'
  | 'stopLoops'
  | 'heldSchedules'
  | 'resumeHeld'
  | 'pauseHeld'
>;

export interface ScheduleHandlerDeps {
  /** The scheduler; throws why it is not available (its database could not be opened). */
  scheduler: () => Scheduler;
  requireSession: (id: string) => void;
  /** A line in the session's transcript (what /loop started, what Esc stopped). */
  note: (sessionId: string, text: string) => void;
}

/** Scheduling for the UI and REST: the same service the model's tools reach. */
export function scheduleHandlers(d: ScheduleHandlerDeps): ScheduleHandlers {
  const withHeld = (sessionId: string | null) => {
    const schedules = d.scheduler().list(sessionId);
    return { schedules, held: d.scheduler().isHeld(sessionId) };
  };
  return {
    listSchedules: ({ sessionId }) => {
      d.requireSession(sessionId);
      return withHeld(sessionId);
    },
    listDurableJobs: () => withHeld(null),
    deleteSchedule: ({ id, sessionId }) => {
      if (sessionId !== undefined) d.requireSession(sessionId);
      const scheduler = d.scheduler();
      const schedule = scheduler.get(id);
      scheduler.delete(id, sessionId);
      return { schedule };
    },
    pauseSchedule: ({ id, paused }) => d.scheduler().pause(id, paused),
    runScheduleNow: ({ id }) => {
      const schedule = d.scheduler().runNow(id);
      void d.scheduler().tick();
      return schedule;
    },
    startLoop: ({ sessionId, args }) => {
      d.requireSession(sessionId);
      const scheduler = d.scheduler();
      const { schedule, confirmation } = scheduler.startLoop(sessionId, args);
      d.note(sessionId, confirmation);
      // The first pass runs now, not at the next look.
      void scheduler.tick();
      return { schedule: scheduler.get(schedule.id), confirmation };
    },
    stopLoops: ({ sessionId }) => {
      d.requireSession(sessionId);
      const stopped = d.scheduler().stopLoops(sessionId);
      if (stopped.length > 0)
        d.note(
          sessionId,
          `Stopped ${stopped.length === 1 ? 'the loop' : 'the loops'} ${stopped.map((loop) => loop.id).join(', ')}.`,
        );
      return { stopped: stopped.map((loop) => publicSchedule(loop)) };
    },
    heldSchedules: () => ({ held: d.scheduler().held() }),
    resumeHeld: ({ sessionId }) => {
      d.scheduler().resumeHeld(sessionId);
      return withHeld(sessionId);
    },
    pauseHeld: ({ sessionId }) => {
      d.scheduler().pauseHeld(sessionId);
      return withHeld(sessionId);
    },
  };
}
