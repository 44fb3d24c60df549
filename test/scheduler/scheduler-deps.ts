import type { SchedulerDeps } from '../../electron/scheduler/scheduler.js';
import type { ScheduleStore } from '../../electron/scheduler/schedule-store.js';

/**
 * A scheduler's dependencies for tests: every session exists and is idle, runs end at once, the
 * clock is the test's, times are UTC. Tests override what they watch.
 */
export function schedulerDeps(
  store: ScheduleStore,
  clock: { now(): number },
  overrides: Partial<SchedulerDeps> = {},
): SchedulerDeps {
  return {
    store,
    clock,
    holder: 'test',
    idle: () => true,
    sessionExists: () => true,
    run: async () => {},
    defaultTask: () => '',
    sessionForJob: () => 'job-session',
    changed: () => {},
    resumeWithoutAsking: () => true,
    note: () => {},
    timeZone: 'UTC',
    ...overrides,
  };
}
