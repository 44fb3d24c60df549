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

/** The resume guard's sentence: "3 schedules and 1 loop will resume". */
export function heldSummary(schedules: readonly Pick<Schedule, 'kind'>[]): string {
  const loops = schedules.filter((schedule) => schedule.kind !== 'cron').length;
  const others = schedules.length - loops;
  const parts = [
    ...(others > 0 ? [`${others} ${others === 1 ? 'schedule' : 'schedules'}`] : []),
    ...(loops > 0 ? [`${loops} ${loops === 1 ? 'loop' : 'loops'}`] : []),
  ];
  return `${parts.join(' and ')} will resume`;
}
