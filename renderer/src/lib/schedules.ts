import type { Schedule } from '@shared/schemas/schedule.js';

/** What kind of schedule a row shows, in a word or two. */
export function scheduleKindLabel(schedule: Pick<Schedule, 'kind' | 'recurring' | 'durable'>): string {
  const kind =
    schedule.kind === 'self_paced'
      ? 'self-paced loop'
      : schedule.kind === 'loop'
        ? 'loop'
        : schedule.recurring
          ? 'recurring'
          : 'reminder';
  return schedule.durable ? `durable ${kind}` : kind;
}

/**
 * The resume guard's sentence: "3 schedules and 1 loop will resume"; a durable one-off missed while
 * Drover was closed does not resume on its own, so it is counted apart ("1 missed one-off waits for you").
 */
export function heldSummary(schedules: readonly Pick<Schedule, 'kind' | 'needsConfirmation'>[]): string {
  const missed = schedules.filter((schedule) => schedule.needsConfirmation).length;
  const resuming = schedules.filter((schedule) => !schedule.needsConfirmation);
  const loops = resuming.filter((schedule) => schedule.kind !== 'cron').length;
  const others = resuming.length - loops;
  const parts = [
    ...(others > 0 ? [`${others} ${others === 1 ? 'schedule' : 'schedules'}`] : []),
    ...(loops > 0 ? [`${loops} ${loops === 1 ? 'loop' : 'loops'}`] : []),
  ];
  const resume = parts.length > 0 ? `${parts.join(' and ')} will resume` : '';
  const wait =
    missed > 0 ? `${missed} missed one-off${missed === 1 ? '' : 's'} ${missed === 1 ? 'waits' : 'wait'} for you` : '';
  return [resume, wait].filter(Boolean).join('; ');
}
