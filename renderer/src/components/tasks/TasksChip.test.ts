// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { settledRow, taskRow } from '../../lib/test-tasks.js';
import TasksChip from './TasksChip.svelte';

afterEach(cleanup);

describe('TasksChip', () => {
  it('says how many run', () => {
    render(TasksChip, {
      tasks: [taskRow('bg_1'), taskRow('bg_2', { status: 'queued' }), settledRow('bg_3', '2025-01-01T12:00:00.000Z')],
      onOpen: () => {},
    });
    expect(screen.getByTestId('tasks-chip').textContent?.trim()).toBe('2 running tasks');
  });

  it('says background tasks once all have finished, and opens the panel', async () => {
    const onOpen = vi.fn();
    render(TasksChip, {
      tasks: [settledRow('bg_1', '2025-01-01T12:00:00.000Z'), settledRow('bg_2', '2025-01-01T12:00:01.000Z')],
      onOpen,
    });
    const chip = screen.getByTestId('tasks-chip');
    expect(chip.textContent?.trim()).toBe('2 background tasks');
    await fireEvent.click(chip);
    expect(onOpen).toHaveBeenCalledOnce();
  });

  it('shows nothing in a chat that never ran a task', () => {
    render(TasksChip, { tasks: [], onOpen: () => {} });
    expect(screen.queryByTestId('tasks-chip')).toBeNull();
  });

  it('counts by kind once a monitor runs, and the shells alone as before', () => {
    const monitor = (id: string) => taskRow(id, { kind: 'monitor', notifyMode: 'scheduled' });
    const { unmount } = render(TasksChip, {
      tasks: [taskRow('bg_1'), taskRow('bg_2'), monitor('mon_1'), settledRow('mon_2', '2025-01-01T12:00:00.000Z')],
      onOpen: () => {},
    });
    expect(screen.getByTestId('tasks-chip').textContent?.trim()).toBe('2 shells, 1 monitor');
    unmount();
    render(TasksChip, { tasks: [monitor('mon_1'), monitor('mon_2')], onOpen: () => {} });
    expect(screen.getByTestId('tasks-chip').textContent?.trim()).toBe('2 monitors');
    expect(screen.getByTestId('tasks-chip').classList.contains('running')).toBe(true);
  });

  it('names running agents: "2 agents", beside shells by kind', () => {
    const agent = (id: string) => taskRow(id, { kind: 'agent', pid: 0 });
    const { unmount } = render(TasksChip, { tasks: [agent('agt_1'), agent('agt_2')], onOpen: () => {} });
    expect(screen.getByTestId('tasks-chip').textContent?.trim()).toBe('2 agents');
    unmount();
    render(TasksChip, { tasks: [taskRow('bg_1'), agent('agt_1')], onOpen: () => {} });
    expect(screen.getByTestId('tasks-chip').textContent?.trim()).toBe('1 shell, 1 agent');
  });
});
