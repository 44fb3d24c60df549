// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, fireEvent } from '@testing-library/svelte';
import type { TaskRow } from '@shared/contract.js';
import type { DroverApi } from '../../lib/api.js';
import { PanelFocus } from '../../lib/panel-focus.js';
import { TasksState } from '../../lib/state/tasks.svelte.js';
import { settledRow, taskRow, taskPages } from '../../lib/test-tasks.js';
import TaskList from './TaskList.svelte';

type Listener = (payload: { task: TaskRow }) => void;

/** The contract's calls the list uses; `push` sends a taskUpdated event as the service would. */
function fakeApi(tasks: TaskRow[]): DroverApi & { push: (task: TaskRow) => void } {
  const listeners: Listener[] = [];
  return {
    ...taskPages(() => tasks),
    on: (name: string, listener: Listener) => {
      if (name === 'taskUpdated') listeners.push(listener);
      return () => {};
    },
    push: (task: TaskRow) => listeners.forEach((listener) => listener({ task })),
  } as unknown as DroverApi & { push: (task: TaskRow) => void };
}

async function renderList(tasks: TaskRow[]) {
  const api = fakeApi(tasks);
  const state = new TasksState(api, 's1');
  const stop = state.start();
  await vi.waitFor(() => expect(state.loaded).toBe(true));
  const result = render(TaskList, { tasks: state, onOpen: () => {} });
  return { api, state, stop, result };
}

const cardOf = (id: string) => screen.getAllByTestId('task-card').find((card) => card.dataset.taskId === id)!;

// jsdom has no CSS.escape; the ids here need no escaping.
globalThis.CSS ??= { escape: (value: string) => value } as unknown as typeof CSS;

// jsdom has no ResizeObserver; the virtual list only needs it to exist.
globalThis.ResizeObserver ??= class {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
} as unknown as typeof ResizeObserver;

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('TaskList', () => {
  it('shows running cards newest first; a later change of status does not move them', async () => {
    const tasks = [
      taskRow('bg_1', { startedAt: '2025-01-01T12:00:00.000Z' }),
      taskRow('bg_2', {
        startedAt: '2025-01-01T12:00:03.000Z',
        lastOutputAt: new Date(Date.now() - 120_000).toISOString(),
      }),
      taskRow('bg_3', { status: 'queued', startedAt: null, queuedAt: '2025-01-01T12:00:01.000Z' }),
    ];
    await renderList(tasks);
    const ids = screen.getAllByTestId('task-card').map((card) => card.dataset.taskId);
    expect(ids).toEqual(['bg_2', 'bg_3', 'bg_1']);
    expect(screen.getByText('silent for 2 min 00 s')).toBeTruthy();
  });

  it('counts finished tasks on a collapsed toggle, leftovers apart with Reap', async () => {
    const tasks = [
      taskRow('bg_1'),
      settledRow('bg_2', '2025-01-01T12:00:05.000Z'),
      settledRow('bg_3', '2025-01-01T12:00:06.000Z', { status: 'failed', exitCode: 1 }),
      taskRow('bg_4', { status: 'orphaned', leftover: true, running: false }),
    ];
    await renderList(tasks);
    const toggle = screen.getByTestId('finished-toggle');
    expect(toggle.textContent).toContain('Finished 2');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryAllByTestId('finished-row').filter((row) => row.dataset.taskId !== 'bg_4')).toHaveLength(0);
    expect(screen.getByTestId('tasks-reap')).toBeTruthy();
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    // jsdom lays nothing out, so the virtual list renders no rows here; its order is tested in lib/tasks.test.ts.
    expect(document.getElementById(toggle.getAttribute('aria-controls') ?? '')).not.toBeNull();
  });

  it("shows a command's control and bidi characters as tokens on its card, never raw", async () => {
    await renderList([taskRow('bg_1', { command: 'echo \u001b[0m \\x1b \u202egpj.exe' })]);
    const command = screen.getByTestId('task-card-command');
    expect(
      [...command.querySelectorAll<HTMLElement>('[data-testid="escape-token"]')].map((token) => token.textContent),
    ).toEqual(['⟨ESC⟩', '⟨U+202E⟩']);
    expect(command.textContent).toBe('echo ⟨ESC⟩[0m \\x1b ⟨U+202E⟩gpj.exe');
    expect(command.closest('button')?.getAttribute('aria-label')).toBe(
      'Open bg_1: echo \\x1b[0m \\x1b \\u{202e}gpj.exe',
    );
  });

  it('clamps progress at 100% and shows overdue', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2025-01-01T12:10:00.000Z'));
    const tasks = [
      taskRow('bg_1', { expectedSeconds: 60, overdue: true }),
      taskRow('bg_2', { startedAt: '2025-01-01T12:09:30.000Z', expectedSeconds: 120 }),
      taskRow('bg_3', { startedAt: '2025-01-01T12:09:00.000Z' }),
    ];
    await renderList(tasks);
    const cards = screen.getAllByTestId('task-card');
    const bar = (id: string) =>
      cards
        .find((card) => card.dataset.taskId === id)
        ?.querySelector<HTMLProgressElement>('[data-testid="task-progress"]');
    expect(bar('bg_1')?.value).toBe(100);
    expect(bar('bg_1')?.dataset.overdue).toBe('true');
    expect(cards.find((card) => card.dataset.taskId === 'bg_1')?.textContent).toContain('overdue');
    expect(bar('bg_2')?.value).toBe(25);
    expect(bar('bg_3')).toBeNull();
    expect(
      cards.find((card) => card.dataset.taskId === 'bg_2')?.querySelector('[data-testid="task-elapsed"]')?.textContent,
    ).toBe('30 s / ~2 min 00 s');
  });

  it('clears only the finished tasks the filter shows, and a closing tab sends the clear at once', async () => {
    const tasks = [
      settledRow('bg_1', '2025-01-01T12:00:05.000Z'),
      settledRow('bg_2', '2025-01-01T12:00:06.000Z', { status: 'failed', exitCode: 1 }),
    ];
    const api = fakeApi(tasks) as unknown as Record<string, unknown>;
    const cleared: string[][] = [];
    api['clearFinishedTasks'] = vi.fn(async ({ taskIds }: { taskIds: string[] }) => {
      cleared.push(taskIds);
      return { removed: taskIds };
    });
    const state = new TasksState(api as unknown as DroverApi, 's1');
    const stop = state.start();
    await vi.waitFor(() => expect(state.loaded).toBe(true));
    state.finishedFilter = 'failed';
    state.clearFinished();
    expect(state.undoableClear).toBe(1);
    globalThis.dispatchEvent(new Event('pagehide'));
    await vi.waitFor(() => expect(cleared).toEqual([['bg_2']]));
    stop();
  });

  it('says which tasks Clear kept because their transcript record could not be saved', async () => {
    const api = fakeApi([settledRow('bg_2', '2025-01-01T12:00:06.000Z')]) as unknown as Record<string, unknown>;
    api['clearFinishedTasks'] = vi.fn(async () => ({
      removed: [],
      kept: [{ taskId: 'bg_2', reason: 'the database is read-only' }],
    }));
    const state = new TasksState(api as unknown as DroverApi, 's1');
    const stop = state.start();
    await vi.waitFor(() => expect(state.loaded).toBe(true));
    state.clearFinished();
    await state.commitClear();
    expect(state.clearError).toBe(
      'Kept bg_2: its transcript record could not be saved first (the database is read-only).',
    );
    stop();
  });

  it('groups shells and monitors under headings with counts only while both run', async () => {
    const { api } = await renderList([
      taskRow('bg_1', { startedAt: '2025-01-01T12:00:00.000Z' }),
      taskRow('bg_2', { startedAt: '2025-01-01T12:00:02.000Z' }),
    ]);
    expect(screen.queryAllByTestId('task-group')).toHaveLength(0);
    expect(screen.getByText('Running 2')).toBeTruthy();

    api.push(taskRow('mon_1', { kind: 'monitor', startedAt: '2025-01-01T12:00:01.000Z' }));
    await vi.waitFor(() => expect(screen.getAllByTestId('task-group')).toHaveLength(2));
    const groups = screen.getAllByTestId('task-group');
    expect(groups.map((group) => group.getAttribute('aria-labelledby'))).toEqual([
      'tasks-group-command',
      'tasks-group-monitor',
    ]);
    expect(screen.getAllByTestId('task-group-title').map((title) => title.textContent)).toEqual([
      'Shells 2',
      'Monitors 1',
    ]);
    const ids = (group: HTMLElement) =>
      [...group.querySelectorAll<HTMLElement>('[data-testid="task-card"]')].map((card) => card.dataset.taskId);
    expect(ids(groups[0]!)).toEqual(['bg_2', 'bg_1']);
    expect(ids(groups[1]!)).toEqual(['mon_1']);
    expect(screen.getByText('Running 3')).toBeTruthy();

    // The last shell ends: one kind is left, and the headings go.
    for (const id of ['bg_1', 'bg_2']) api.push(settledRow(id, '2025-01-01T12:00:09.000Z'));
    await vi.waitFor(() => expect(screen.queryAllByTestId('task-group')).toHaveLength(0));
    expect(screen.getAllByTestId('task-card').map((card) => card.dataset.taskId)).toEqual(['mon_1']);
  });

  it("keeps the focus on a card's task when the list splits into groups under it", async () => {
    const { api, result } = await renderList([taskRow('bg_1')]);
    const panel = document.createElement('aside');
    panel.dataset.testid = 'tasks-panel';
    panel.innerHTML = '<h2>Tasks</h2>';
    result.container.before(panel);
    panel.append(result.container);
    const stopWatching = new PanelFocus(
      () => document.body,
      () => undefined,
    ).watch();
    const open = cardOf('bg_1').querySelector('button')!;
    open.focus();
    api.push(taskRow('mon_1', { kind: 'monitor', startedAt: '2025-01-01T12:00:05.000Z' }));
    await vi.waitFor(() => expect(screen.getAllByTestId('task-group')).toHaveLength(2));
    await vi.waitFor(() =>
      expect(document.activeElement?.closest('[data-task-id]')?.getAttribute('data-task-id')).toBe('bg_1'),
    );
    expect(document.activeElement?.getAttribute('aria-label')).toMatch(/^Open bg_1/);
    stopWatching();
  });

  it('shows a monitor, its countdown, its ports and its readiness on its card; a plain shell shows none', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2025-01-01T12:00:13.000Z'));
    await renderList([
      taskRow('bg_1'),
      taskRow('mon_1', {
        kind: 'monitor',
        notifyMode: 'scheduled',
        checkAfterSeconds: 45,
        pingDueAt: '2025-01-01T12:00:45.000Z',
      }),
      taskRow('bg_2', {
        ports: [3000, 5173],
        ready: false,
        readyCheck: { port: 3000, pattern: 'Local:\\x1b \u001b.*' },
      }),
      taskRow('bg_3', { ready: true, readyAt: '2025-01-01T12:00:04.200Z' }),
    ]);
    expect(cardOf('bg_1').querySelector('[data-testid="task-signals"]')).toBeNull();

    const monitor = cardOf('mon_1');
    expect(monitor.querySelector('[data-testid="task-kind"]')?.textContent).toBe('monitor');
    expect(monitor.querySelector('[data-testid="task-schedule"]')?.textContent).toBe('next check in 32 s');

    const server = cardOf('bg_2');
    const ports = [...server.querySelectorAll<HTMLElement>('[data-testid="task-port"]')];
    expect(ports.map((port) => [port.textContent, port.title])).toEqual([
      [':3000', 'Listening on TCP port 3000'],
      [':5173', 'Listening on TCP port 5173'],
    ]);
    const waiting = server.querySelector<HTMLElement>('[data-testid="task-readiness"]')!;
    expect(waiting.dataset.state).toBe('waiting');
    // The pattern is the model's text: a raw escape shows as a token, a typed backslash stays as typed.
    expect(waiting.textContent).toBe('waiting until ready: port 3000 listens, output matches Local:\\x1b ⟨ESC⟩.*');
    expect(waiting.querySelector('[data-testid="escape-token"]')).not.toBeNull();

    expect(cardOf('bg_3').querySelector('[data-testid="task-readiness"]')?.textContent).toBe('ready in 4 s');
  });

  it('groups agents under Agents: name, description, status in agent words, limits, Kill; never a pid', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2025-01-01T12:00:20.000Z'));
    const info = { name: 'researcher', description: 'Find the flaky test', depth: 1, maxSteps: 40, maxTokens: 1e6 };
    const tasks = [
      taskRow('bg_1', { ownerTaskId: 'agt_2', startedAt: '2025-01-01T12:00:05.000Z' }),
      taskRow('agt_2', {
        kind: 'agent',
        pid: 0,
        command: 'Find the flaky test',
        agent: { ...info, steps: 12, tokens: 48_000 },
      }),
      taskRow('agt_3', {
        kind: 'agent',
        pid: 0,
        status: 'queued',
        startedAt: null,
        command: 'Read \u202e the docs \u202e',
        agent: { ...info, name: 'general-purpose', steps: 0, tokens: 0 },
      }),
    ];
    const api = fakeApi(tasks);
    const state = new TasksState(api, 's1');
    state.start();
    await vi.waitFor(() => expect(state.loaded).toBe(true));
    const onOpen = vi.fn();
    render(TaskList, { tasks: state, onOpen });
    const groups = screen.getAllByTestId('task-group');
    expect(groups.map((group) => group.dataset.kind)).toEqual(['command', 'agent']);
    expect(screen.getAllByTestId('task-group-title').map((title) => title.textContent)).toEqual([
      'Shells 1',
      'Agents 2',
    ]);
    const agent = cardOf('agt_2');
    expect(agent.dataset.kind).toBe('agent');
    expect(agent.querySelector('[data-testid="agent-card-name"]')?.textContent).toBe('researcher');
    expect(agent.querySelector('[data-testid="task-card-command"]')?.textContent).toBe('Find the flaky test');
    const status = agent.querySelector<HTMLElement>('[data-testid="agent-status"]')!;
    expect([status.dataset.status, status.textContent]).toEqual(['running', 'running']);
    expect(agent.querySelector('[data-testid="agent-card-use"]')?.textContent).toBe(
      '12 of 40 model calls · 48k of 1M tokens',
    );
    expect(agent.querySelector('[data-testid="task-card-stop"]')?.textContent?.trim()).toBe('Kill');
    expect(agent.textContent).not.toMatch(/pid|timeout/i);
    const queued = cardOf('agt_3');
    expect(queued.querySelector<HTMLElement>('[data-testid="agent-status"]')?.dataset.status).toBe('queued');
    expect(queued.querySelector('[data-testid="agent-card-queued"]')).not.toBeNull();
    expect(queued.querySelector('[data-testid="task-card-command"]')?.textContent).toBe(
      'Read ⟨U+202E⟩ the docs ⟨U+202E⟩',
    );

    // A task an agent started names it, and opens it.
    const owner = cardOf('bg_1').querySelector<HTMLButtonElement>('[data-testid="task-owner"]')!;
    expect(owner.textContent).toBe('started by agt_2');
    await fireEvent.click(owner);
    expect(onOpen).toHaveBeenCalledExactlyOnceWith('agt_2');
    // The card's own button stays first, so going back from a task focuses its opener.
    expect(cardOf('bg_1').querySelector('button')?.getAttribute('aria-label')).toMatch(/^Open bg_1/);
    await fireEvent.click(agent.querySelector('button')!);
    expect(onOpen).toHaveBeenLastCalledWith('agt_2');
  });
});
