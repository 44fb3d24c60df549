import { describe, expect, it } from 'vitest';
import {
  chipLabel,
  clockLabel,
  elapsedAgainstEstimate,
  finishedNewestFirst,
  runningByKindLabel,
  runningNewestFirst,
  taskProgress,
} from './tasks.js';
import { settledRow, taskRow } from './test-tasks.js';

const T0 = Date.parse('2025-01-01T12:00:00.000Z');

describe('task ordering', () => {
  it('lists running and queued tasks newest first by start or queue time, whatever their status', () => {
    const tasks = [
      taskRow('bg_1', { startedAt: '2025-01-01T12:00:00.000Z' }),
      taskRow('bg_2', { status: 'queued', startedAt: null, queuedAt: '2025-01-01T12:00:05.000Z' }),
      taskRow('bg_3', { startedAt: '2025-01-01T12:00:02.000Z', silentForSeconds: 90 }),
      settledRow('bg_4', '2025-01-01T12:00:09.000Z'),
    ];
    expect(runningNewestFirst(tasks).map((t) => t.id)).toEqual(['bg_2', 'bg_3', 'bg_1']);
  });

  it('lists finished tasks newest first by end time, leftovers apart', () => {
    const tasks = [
      settledRow('bg_1', '2025-01-01T12:00:09.000Z'),
      settledRow('bg_2', '2025-01-01T12:00:03.000Z'),
      settledRow('bg_3', '2025-01-01T12:00:05.000Z', { status: 'failed', exitCode: 1 }),
      taskRow('bg_4', { status: 'orphaned', leftover: true }),
    ];
    expect(finishedNewestFirst(tasks).map((t) => t.id)).toEqual(['bg_1', 'bg_3', 'bg_2']);
  });
});

describe('progress', () => {
  it('is null without an estimate', () => {
    expect(taskProgress(taskRow('bg_1'), T0 + 5000)).toBeNull();
  });

  it('clamps at 100% and says overdue', () => {
    const task = taskRow('bg_1', { expectedSeconds: 60, overdue: true });
    expect(taskProgress(task, T0 + 30_000)).toEqual({ percent: 50, overdue: true });
    expect(taskProgress(task, T0 + 600_000)).toEqual({ percent: 100, overdue: true });
  });

  it('reads elapsed against the estimate', () => {
    expect(elapsedAgainstEstimate(taskRow('bg_1', { expectedSeconds: 120 }), T0 + 65_000)).toBe('1:05 / ~2:00');
    expect(elapsedAgainstEstimate(taskRow('bg_1'), T0 + 7000)).toBe('0:07');
    expect(clockLabel(3729)).toBe('1:02:09');
  });
});

describe('wording', () => {
  it('words the transcript chip: running, background, or nothing', () => {
    expect(chipLabel([])).toBeNull();
    expect(
      chipLabel([
        taskRow('bg_1'),
        taskRow('bg_2', { status: 'queued' }),
        settledRow('bg_3', '2025-01-01T12:00:01.000Z'),
      ]),
    ).toBe('2 running tasks');
    expect(chipLabel([taskRow('bg_1')])).toBe('1 running task');
    expect(
      chipLabel([settledRow('bg_1', '2025-01-01T12:00:01.000Z'), settledRow('bg_2', '2025-01-01T12:00:02.000Z')]),
    ).toBe('2 background tasks');
  });

  it('counts running tasks by kind', () => {
    const tasks = [
      taskRow('bg_1'),
      taskRow('bg_2'),
      taskRow('bg_3'),
      taskRow('mon_1', { kind: 'monitor' }),
      taskRow('mon_2', { kind: 'monitor' }),
      taskRow('ag_1', { kind: 'agent', status: 'succeeded' }),
    ];
    expect(runningByKindLabel(tasks)).toBe('3 shells, 2 monitors');
    expect(runningByKindLabel([taskRow('ag_1', { kind: 'agent' })])).toBe('1 agent');
    expect(runningByKindLabel([])).toBeNull();
  });
});
