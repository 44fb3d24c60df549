import { beforeAll, describe, expect, it } from 'vitest';
import {
  chipLabel,
  elapsedAgainstEstimate,
  filterFinished,
  finishedClock,
  finishedCounts,
  finishedNewestFirst,
  groupByKind,
  isAgentTask,
  outcomeLabel,
  runningByKindLabel,
  runningNewestFirst,
  taskProgress,
  timeoutText,
} from './tasks.js';
import { settledRow, taskRow } from './test-tasks.js';
import { loadLocale } from './state/locale.svelte.js';

// These read times and counts as the person's locale writes them (before it is in: state/locale.test.ts).
beforeAll(loadLocale);

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

  it('lists finished tasks newest first by start time (not end time), leftovers apart', () => {
    const tasks = [
      // Started first, ended last: still last in the list.
      settledRow('bg_1', '2025-01-01T12:00:09.000Z', { startedAt: '2025-01-01T12:00:00.000Z' }),
      settledRow('bg_2', '2025-01-01T12:00:03.000Z', { startedAt: '2025-01-01T12:00:02.000Z' }),
      settledRow('bg_3', '2025-01-01T12:00:05.000Z', {
        status: 'failed',
        exitCode: 1,
        startedAt: '2025-01-01T12:00:01.000Z',
      }),
      taskRow('bg_4', { status: 'orphaned', leftover: true }),
    ];
    expect(finishedNewestFirst(tasks).map((t) => t.id)).toEqual(['bg_2', 'bg_3', 'bg_1']);
  });

  it('filters finished tasks by outcome, with counts', () => {
    const finished = [
      settledRow('bg_1', '2025-01-01T12:00:01.000Z'),
      settledRow('bg_2', '2025-01-01T12:00:02.000Z', { status: 'failed', exitCode: 2 }),
      settledRow('bg_3', '2025-01-01T12:00:03.000Z', { status: 'lost' }),
      settledRow('bg_4', '2025-01-01T12:00:04.000Z', { status: 'stopped' }),
      settledRow('bg_5', '2025-01-01T12:00:05.000Z', { status: 'timed_out' }),
    ];
    expect(finishedCounts(finished)).toEqual({ all: 5, succeeded: 1, failed: 2, stopped: 1, timed_out: 1 });
    expect(filterFinished(finished, 'failed').map((t) => t.id)).toEqual(['bg_2', 'bg_3']);
    expect(filterFinished(finished, 'all')).toHaveLength(5);
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
    expect(elapsedAgainstEstimate(taskRow('bg_1', { expectedSeconds: 120 }), T0 + 65_000)).toBe(
      '1 min 05 s / ~2 min 00 s',
    );
    expect(elapsedAgainstEstimate(taskRow('bg_1'), T0 + 7000)).toBe('7 s');
    expect(elapsedAgainstEstimate(taskRow('bg_1'), T0 + 300)).toBe('under 1 s');
  });

  it('reads the timeout and what is left of it, and a finished row in the same format', () => {
    expect(timeoutText(taskRow('bg_1', { timeoutSeconds: 600 }), T0 + 2000)).toBe(
      'times out in 9 min 58 s (of 10 min 00 s)',
    );
    expect(timeoutText(settledRow('bg_1', '2025-01-01T12:00:04.000Z'), T0)).toBe('timeout 10 min 00 s');
    expect(finishedClock(settledRow('bg_1', '2025-01-01T12:00:04.000Z', { elapsedSeconds: 0.2 }))).toMatch(
      / · under 1 s$/,
    );
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

  it('counts no foreground run as a background task; one handed to the background counts', () => {
    const echo = settledRow('bg_1', '2025-01-01T12:00:01.000Z', { foreground: true });
    expect(chipLabel([echo])).toBeNull();
    expect(chipLabel([taskRow('bg_2', { foreground: true })])).toBeNull();
    expect(chipLabel([echo, settledRow('bg_3', '2025-01-01T12:00:02.000Z', { foreground: true, adopted: true })])).toBe(
      '1 background task',
    );
    expect(runningByKindLabel([taskRow('bg_2', { foreground: true })])).toBeNull();
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
    expect(runningByKindLabel([taskRow('bg_1')])).toBe('1 shell');
    expect(runningByKindLabel([taskRow('mon_1', { kind: 'monitor' }), taskRow('mon_2', { kind: 'monitor' })])).toBe(
      '2 monitors',
    );
    expect(runningByKindLabel([taskRow('bg_1'), taskRow('mon_1', { kind: 'monitor', status: 'queued' })])).toBe(
      '1 shell, 1 monitor',
    );
    expect(runningByKindLabel([])).toBeNull();
  });

  it('words the transcript chip by kind once a monitor runs, and as before for shells alone', () => {
    const monitor = taskRow('mon_1', { kind: 'monitor' });
    expect(chipLabel([taskRow('bg_1'), taskRow('bg_2'), monitor])).toBe('2 shells, 1 monitor');
    expect(chipLabel([monitor])).toBe('1 monitor');
    expect(chipLabel([taskRow('bg_1'), taskRow('bg_2')])).toBe('2 running tasks');
    // A foreground shell is no background task, here either.
    expect(chipLabel([taskRow('bg_1', { foreground: true }), monitor])).toBe('1 monitor');
    // Once nothing runs, every kind is a background task.
    expect(
      chipLabel([
        settledRow('bg_1', '2025-01-01T12:00:01.000Z'),
        settledRow('mon_1', '2025-01-01T12:00:02.000Z', { kind: 'monitor' }),
      ]),
    ).toBe('2 background tasks');
  });

  it('groups the running list by kind only when more than one kind runs, keeping its order', () => {
    const tasks = [
      taskRow('mon_2', { kind: 'monitor' }),
      taskRow('bg_3'),
      taskRow('mon_1', { kind: 'monitor' }),
      taskRow('bg_1'),
    ];
    const groups = groupByKind(tasks);
    expect(groups?.map((group) => [group.title, group.tasks.map((task) => task.id)])).toEqual([
      ['Shells', ['bg_3', 'bg_1']],
      ['Monitors', ['mon_2', 'mon_1']],
    ]);
    expect(groupByKind([taskRow('bg_1'), taskRow('bg_2')])).toBeNull();
    expect(groupByKind([taskRow('mon_1', { kind: 'monitor' })])).toBeNull();
    expect(groupByKind([])).toBeNull();
  });

  describe('agents', () => {
    const agent = (id: string, patch: Parameters<typeof taskRow>[1] = {}) =>
      taskRow(id, { kind: 'agent', pid: 0, command: 'Find the flaky test', ...patch });

    it('groups agents last, after shells and monitors', () => {
      const groups = groupByKind([
        agent('agt_2'),
        taskRow('bg_1'),
        taskRow('mon_1', { kind: 'monitor' }),
        agent('agt_1'),
      ]);
      expect(groups?.map((group) => [group.kind, group.title, group.tasks.map((task) => task.id)])).toEqual([
        ['command', 'Shells', ['bg_1']],
        ['monitor', 'Monitors', ['mon_1']],
        ['agent', 'Agents', ['agt_2', 'agt_1']],
      ]);
      expect(groupByKind([agent('agt_1'), agent('agt_2')])).toBeNull();
    });

    it('names running agents in the chip, alone or beside shells; settled ones are background tasks', () => {
      expect(chipLabel([agent('agt_1'), agent('agt_2', { status: 'queued' })])).toBe('2 agents');
      expect(chipLabel([taskRow('bg_1'), agent('agt_1'), agent('agt_2')])).toBe('1 shell, 2 agents');
      expect(chipLabel([taskRow('bg_1'), agent('agt_1', { status: 'succeeded', running: false })])).toBe(
        '1 running task',
      );
      expect(chipLabel([settledRow('agt_1', '2025-01-01T12:00:01.000Z', { kind: 'agent' })])).toBe('1 background task');
    });

    it('words how an agent ended in its own terms, never as an exit code', () => {
      const ended = (status: 'succeeded' | 'failed' | 'stopped' | 'timed_out' | 'lost') =>
        outcomeLabel(settledRow('agt_1', '2025-01-01T12:00:01.000Z', { kind: 'agent', status, exitCode: null }));
      expect(['succeeded', 'failed', 'stopped', 'timed_out', 'lost'].map((s) => ended(s as never))).toEqual([
        'completed',
        'failed',
        'killed',
        'killed',
        'failed',
      ]);
      expect(outcomeLabel(settledRow('bg_1', '2025-01-01T12:00:01.000Z'))).toBe('exit 0');
    });

    it('knows an agent task by its row, or by its id while the list loads', () => {
      expect(isAgentTask(agent('agt_1'), 'agt_1')).toBe(true);
      expect(isAgentTask(taskRow('bg_1'), 'bg_1')).toBe(false);
      expect(isAgentTask(undefined, 'agt_12')).toBe(true);
      expect(isAgentTask(undefined, 'bg_12')).toBe(false);
      expect(isAgentTask(undefined, 'xagt_1')).toBe(false);
    });
  });
});
