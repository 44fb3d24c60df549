// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import type { TaskRow } from '@shared/contract.js';
import type { AgentEvent, AgentRun } from '@shared/schemas/subagent.js';
import type { DroverApi } from '../../lib/api.js';
import type { ConnectionState } from '../../lib/state/connection.svelte.js';
import { AGENT_REFETCH_MS } from '../../lib/state/agent-run.svelte.js';
import { TasksState } from '../../lib/state/tasks.svelte.js';
import { taskRow, taskPages } from '../../lib/test-tasks.js';
import TaskView from './TaskView.svelte';

const at = '2025-01-01T12:00:01.000Z';
const info = { name: 'researcher', description: 'Find the flaky test', depth: 1, maxSteps: 40, maxTokens: 1_000_000 };
const agentRow = (patch: Partial<TaskRow> = {}) =>
  taskRow('agt_2', {
    kind: 'agent',
    pid: 0,
    command: 'Find the flaky test',
    ownerTaskId: null,
    agent: { ...info, steps: 1, tokens: 2000 },
    ...patch,
  });

/** The calls the view makes; `emit` sends an event as the service would; `runs` answers getAgentRun in turn. */
function fakeApi(rows: TaskRow[], runs: AgentRun[]) {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const getAgentRun = vi.fn(async () => (runs.length > 1 ? runs.shift()! : runs[0]!));
  const readTaskLog = vi.fn(async () => ({ data: '', fromByte: 0, toByte: 0, truncated: false }));
  const stopTask = vi.fn(async () => ({ task: { ...rows[0]!, status: 'stopped' }, output: {}, agent: null }));
  const api = {
    ...taskPages(() => rows),
    getAgentRun,
    readTaskLog,
    stopTask,
    on: (name: string, listener: (payload: unknown) => void) => {
      const set = listeners.get(name) ?? new Set();
      set.add(listener);
      listeners.set(name, set);
      return () => set.delete(listener);
    },
  } as unknown as DroverApi;
  const emit = (name: string, payload: unknown) => listeners.get(name)?.forEach((listener) => listener(payload));
  return { api, getAgentRun, readTaskLog, stopTask, emit };
}

const connection = { onReconnect: () => () => {} } as unknown as ConnectionState;

async function renderView(rows: TaskRow[], runs: AgentRun[], taskId = 'agt_2') {
  const fake = fakeApi(rows, runs);
  const tasks = new TasksState(fake.api, 's1');
  tasks.start();
  await vi.waitFor(() => expect(tasks.loaded).toBe(true));
  const onOpenTask = vi.fn();
  const onBack = vi.fn();
  render(TaskView, { api: fake.api, tasks, connection, taskId, onBack, onOpenTask });
  return { ...fake, tasks, onOpenTask };
}

const events: AgentEvent[] = [
  { type: 'start', at, agent: 'researcher', prompt: 'Find the flaky test in\nsrc/pool and say why' },
  { type: 'text', at, text: 'Running the ' },
  { type: 'text', at, text: 'suite <b>now</b>.' },
  { type: 'tool_call', at, id: 'c1', name: 'run_command', args: { command: 'npm test', background: true } },
  { type: 'tool_result', at, id: 'c1', status: 'done', text: 'Started bg_4', taskId: 'bg_4' },
  { type: 'tool_call', at, id: 'c2', name: 'run_command', args: { command: 'rm -rf /' } },
  { type: 'tool_result', at, id: 'c2', status: 'rejected', text: 'The person said no', taskId: null },
  { type: 'usage', at, steps: 2, tokens: 48_000 },
];

const running = (list: AgentEvent[]): AgentRun => ({
  status: 'running',
  result: null,
  error: null,
  events: list,
  truncated: false,
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('the task view of an agent', () => {
  it('shows its transcript, never a terminal: prompt, joined messages, tool rows, usage; no search', async () => {
    const { readTaskLog, onOpenTask } = await renderView([agentRow()], [running(events)]);
    await screen.findAllByTestId('agent-tool-row');
    expect(screen.queryByTestId('task-terminal')).toBeNull();
    expect(readTaskLog).not.toHaveBeenCalled();
    expect(screen.queryByTestId('task-search-open')).toBeNull();
    expect(screen.queryByTestId('task-rerun')).toBeNull();
    expect(screen.getByTestId('agent-view').dataset.status).toBe('running');

    expect(screen.getByTestId('agent-prompt').textContent).toContain('Find the flaky test in\nsrc/pool and say why');
    // Inert text: markup the model wrote is shown as written.
    expect(screen.getAllByTestId('agent-message').map((message) => message.textContent)).toEqual([
      'Running the suite <b>now</b>.',
    ]);
    expect(screen.getByTestId('agent-view').querySelector('b')).toBeNull();

    const rows = screen.getAllByTestId('agent-tool-row');
    expect(rows.map((row) => row.dataset.status)).toEqual(['done', 'rejected']);
    expect(rows[0]!.querySelector('[data-testid="agent-tool-name"]')?.textContent).toBe('run_command');
    expect(rows[0]!.querySelector('[data-testid="agent-tool-summary"]')?.textContent).toBe('npm test');
    // The result is folded until asked for.
    expect(rows[1]!.querySelector('[data-testid="agent-tool-result"]')).toBeNull();
    await fireEvent.click(rows[1]!.querySelector('[data-testid="agent-tool-toggle"]')!);
    expect(rows[1]!.querySelector('[data-testid="agent-tool-result"]')?.textContent).toBe('The person said no');
    // The task a call started is one click away.
    await fireEvent.click(rows[0]!.querySelector('[data-testid="agent-tool-task"]')!);
    expect(onOpenTask).toHaveBeenCalledExactlyOnceWith('bg_4');
    expect(rows[1]!.querySelector('[data-testid="agent-tool-task"]')).toBeNull();

    // The transcript ran ahead of the row: its usage counts.
    expect(screen.getByTestId('agent-usage').textContent).toBe('2 of 40 model calls · 48k of 1M tokens');
    const status = screen.getByTestId('agent-status');
    expect([status.dataset.status, status.textContent]).toEqual(['running', 'running']);
    expect(screen.getByTestId('task-view-stop').textContent?.trim()).toBe('Kill');
    expect(screen.queryByTestId('agent-result')).toBeNull();
  });

  it('streams: a taskOutput event fetches the run again and the new text joins the last message', async () => {
    vi.useFakeTimers();
    const first = running(events.slice(0, 3));
    const second = running([...events.slice(0, 3), { type: 'text', at, text: ' Still going.' }]);
    const { emit, getAgentRun } = await renderView([agentRow()], [first, second]);
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.getAllByTestId('agent-message').map((m) => m.textContent)).toEqual(['Running the suite <b>now</b>.']);
    await vi.advanceTimersByTimeAsync(AGENT_REFETCH_MS);
    emit('taskOutput', { sessionId: 's1', taskId: 'agt_2', totalBytes: 900 });
    await vi.advanceTimersByTimeAsync(0);
    expect(getAgentRun).toHaveBeenCalledTimes(2);
    expect(screen.getAllByTestId('agent-message').map((m) => m.textContent)).toEqual([
      'Running the suite <b>now</b>. Still going.',
    ]);
  });

  it('ends with its result, or with why it failed; kills through the task', async () => {
    const done = { ...running(events), status: 'completed' as const, result: 'It is the 5 s timeout.' };
    const { stopTask } = await renderView([agentRow({ status: 'succeeded', running: false, endedAt: at })], [done]);
    expect((await screen.findByTestId('agent-result')).textContent).toContain('It is the 5 s timeout.');
    expect(screen.getByTestId('agent-status').dataset.status).toBe('completed');
    expect(screen.queryByTestId('task-view-stop')).toBeNull();
    expect(screen.queryByTestId('agent-error')).toBeNull();
    expect(stopTask).not.toHaveBeenCalled();
    cleanup();

    const failed = { ...running(events), status: 'failed' as const, error: 'it reached its limit of 40 model calls' };
    await renderView([agentRow({ status: 'failed', running: false, endedAt: at })], [failed]);
    expect((await screen.findByTestId('agent-error')).textContent).toBe(
      'Failed: it reached its limit of 40 model calls',
    );
    cleanup();

    const live = await renderView([agentRow()], [running([])]);
    await fireEvent.click(await screen.findByTestId('task-view-stop'));
    expect(live.stopTask).toHaveBeenCalledExactlyOnceWith({ sessionId: 's1', taskId: 'agt_2' });
  });

  it('names the agent that started it, as a link to that agent', async () => {
    const { onOpenTask } = await renderView(
      [agentRow({ id: 'agt_5', ownerTaskId: 'agt_2', agent: { ...info, depth: 2, steps: 0, tokens: 0 } })],
      [running([])],
      'agt_5',
    );
    const owner = await screen.findByTestId('task-owner');
    expect(owner.textContent).toBe('started by agt_2');
    await fireEvent.click(owner);
    expect(onOpenTask).toHaveBeenCalledExactlyOnceWith('agt_2');
    expect(screen.getByTestId('agent-depth').textContent).toBe('2');
  });
});
