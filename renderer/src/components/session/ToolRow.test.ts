// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import type { Message, TaskRow } from '@shared/contract.js';
import type { TaskSnapshot } from '@shared/schemas/message.js';
import { visibleCommand } from '@shared/domain/commands.js';
import type { DroverApi } from '../../lib/api.js';
import { TasksState } from '../../lib/state/tasks.svelte.js';
import { TranscriptState } from '../../lib/state/transcript.svelte.js';
import ToolRow from './ToolRow.svelte';
import { taskRow as testTaskRow, taskPages } from '../../lib/test-tasks.js';

const ESC = '\u001b';
const RLO = '\u202e';

/** A model's run_command row, as the agent writes it: the text is the escaped command, the arguments the real one. */
function callRow(command: string, patch: Partial<Message> = {}): Message {
  return {
    id: 7,
    sessionId: 's1',
    role: 'tool',
    text: visibleCommand(command),
    taskId: null,
    toolName: 'run_command',
    toolCallId: 'call_1',
    toolArgs: { command },
    toolResult: null,
    display: null,
    taskSnapshot: null,
    status: 'running',
    automated: false,
    schedule: null,
    createdAt: '2025-01-01T12:00:00.000Z',
    ...patch,
  };
}

function renderRow(message: Message, onGoToRequest?: () => void) {
  const api = { ...taskPages(() => []), on: () => () => {} } as unknown as DroverApi;
  const tasks = new TasksState(api, 's1');
  return render(ToolRow, { message, tasks, ...(onGoToRequest ? { onGoToRequest } : {}) });
}

const codes = (element: Element) =>
  [...element.querySelectorAll<HTMLElement>('[data-testid="escape-token"]')].map((token) => Number(token.dataset.code));

afterEach(cleanup);

describe('ToolRow', () => {
  it('a row waiting for the person says so, calmly: no spinner, and a button to the request', async () => {
    const onGoToRequest = vi.fn();
    renderRow(callRow('rm -rf build', { status: 'waiting' }), onGoToRequest);
    const row = screen.getByTestId('tool-row');
    expect(row.dataset.status).toBe('waiting');
    const badge = screen.getByTestId('tool-status');
    expect(badge.textContent?.trim()).toBe('waiting for your answer');
    expect(badge.classList.contains('waiting')).toBe(true);
    expect(badge.querySelector('.spinner')).toBeNull();
    await fireEvent.click(screen.getByTestId('tool-go-to-request'));
    expect(onGoToRequest).toHaveBeenCalledOnce();
    await fireEvent.click(row.querySelector('button[aria-expanded]')!);
    expect(row.textContent).toContain('Waiting for your answer before it runs.');
  });

  it('a rejected row says "rejected", neutral, never an error', async () => {
    const command = 'curl x | sh';
    renderRow(
      callRow(command, { status: 'rejected', toolResult: `Not run: the person rejected \`${command}\`.` }),
      () => {},
    );
    const row = screen.getByTestId('tool-row');
    expect(row.dataset.status).toBe('rejected');
    const badge = screen.getByTestId('tool-status');
    expect(badge.textContent?.trim()).toBe('rejected');
    expect(badge.classList.contains('error')).toBe(false);
    expect(screen.queryByTestId('tool-go-to-request')).toBeNull();
    await fireEvent.click(row.querySelector('button[aria-expanded]')!);
    expect(screen.getByTestId('tool-result').classList.contains('bad')).toBe(false);
  });

  it('shows the real command with tokens in its header, Result and Arguments; literal escapes stay text, bidi never raw', async () => {
    const command = `printf '\\x1b[1m\\n' ${ESC}[0m\necho ${RLO}gpj.exe`;
    const { container } = renderRow(
      callRow(command, { status: 'rejected', toolResult: `Not run: the person rejected \`${command}\`.` }),
    );
    const header = screen.getByTestId('tool-command');
    expect(codes(header)).toEqual([0x1b, 0x0a, 0x202e]);
    expect(header.textContent).toBe(`printf '\\x1b[1m\\n' ⟨ESC⟩[0m⟨LF⟩echo ⟨U+202E⟩gpj.exe`);
    // The tooltip is the escaped form: plain ASCII, nothing to flip.
    expect(header.closest('button')!.getAttribute('title')).toBe(visibleCommand(command));

    await fireEvent.click(container.querySelector('button[aria-expanded]')!);
    const result = screen.getByTestId('tool-result');
    // Output keeps its line breaks; the ESC and RLO are tokens.
    expect(codes(result)).toEqual([0x1b, 0x202e]);
    expect(result.textContent).toContain(`' ⟨ESC⟩[0m\necho ⟨U+202E⟩gpj.exe`);
    await fireEvent.click(screen.getByTestId('tool-args-toggle'));
    const args = screen.getByTestId('tool-args');
    expect(codes(args)).toEqual([0x1b, 0x0a, 0x202e]);
    // JSON escapes its backslashes and quotes, not the characters a person must see as tokens.
    expect(args.textContent).toBe(`{\n  "command": "printf '\\\\x1b[1m\\\\n' ⟨ESC⟩[0m⟨LF⟩echo ⟨U+202E⟩gpj.exe"\n}`);
    expect(container.textContent).not.toMatch(/[\u001b\u202e]/);
  });
});

/** A tasks state over a fake api whose events the test sends. */
function liveTasks(rows: TaskRow[], calls: string[] = []) {
  const handlers = new Map<string, (payload: unknown) => void>();
  const api = {
    ...taskPages(() => rows),
    getTask: async ({ taskId }: { taskId: string }) => ({
      task: rows.find((row) => row.id === taskId)!,
      output: { text: 'live output', totalBytes: 11, truncated: false },
    }),
    listMessages: async () => [],
    backgroundTask: async ({ taskId }: { taskId: string }) => {
      calls.push(taskId);
      return { task: rows.find((row) => row.id === taskId)! };
    },
    on: (name: string, handler: (payload: unknown) => void) => {
      handlers.set(name, handler);
      return () => handlers.delete(name);
    },
  } as unknown as DroverApi;
  const tasks = new TasksState(api, 's1');
  tasks.start();
  return { api, tasks, emit: (name: string, payload: unknown) => handlers.get(name)?.(payload) };
}

function taskRow(patch: Partial<TaskRow> = {}): TaskRow {
  return testTaskRow('bg_1', {
    command: 'sleep 100',
    pid: 42,
    elapsedSeconds: 3,
    timeoutSeconds: 1800,
    foreground: true,
    containment: 'group',
    logPath: '/data/bg_1.log',
    ...patch,
  });
}

const snapshot: TaskSnapshot = {
  taskId: 'bg_1',
  command: 'make test',
  status: 'failed',
  exitCode: 2,
  signal: null,
  exitNote: null,
  error: null,
  startedAt: '2025-01-01T12:00:00.000Z',
  endedAt: '2025-01-01T12:01:05.000Z',
  elapsedSeconds: 65,
  foreground: true,
  adopted: false,
  output: { text: `line 1\nFAIL ${ESC}[31mred${ESC}[0m\n`, totalBytes: 30, truncated: true },
  takenAt: '2025-01-01T12:01:05.000Z',
};

function shellRow(patch: Partial<Message> = {}): Message {
  return { ...callRow('make test'), toolName: null, toolCallId: null, toolArgs: null, text: 'make test', ...patch };
}

describe('ToolRow after its task is cleared', () => {
  it('shows what it kept: command, status, exit, duration and output (inert), and says "log removed"', async () => {
    const { tasks, emit } = liveTasks([]);
    emit('tasksCleared', { sessionId: 's1', removed: ['bg_1'] });
    render(ToolRow, { message: shellRow({ taskId: 'bg_1', status: 'done', taskSnapshot: snapshot }), tasks });
    const row = screen.getByTestId('tool-row');
    expect(row.dataset.status).toBe('failed');
    expect(screen.getByTestId('tool-command').textContent).toBe('make test');
    expect(screen.getByTestId('tool-exit').textContent).toBe('exit 2');
    expect(screen.getByTestId('tool-elapsed').textContent).toBe('1 min 05 s');
    expect(screen.getByTestId('tool-log-removed').textContent).toBe('log removed');
    expect(screen.queryByTestId('tool-open-in-tasks')).toBeNull();
    const output = screen.getByTestId('tool-output');
    expect(output.textContent).toContain('FAIL ⟨ESC⟩[31mred');
    expect(codes(output)).toEqual([0x1b, 0x1b]);
    expect(screen.getByTestId('tool-kept').textContent).toContain('kept the last 2 lines');
    expect(row.textContent).not.toContain('cleared');
  });

  it('an older row with nothing kept says so calmly, never "cleared"', async () => {
    const { tasks, emit } = liveTasks([]);
    emit('tasksCleared', { sessionId: 's1', removed: ['bg_1'] });
    render(ToolRow, { message: shellRow({ taskId: 'bg_1', status: 'done' }), tasks });
    expect(screen.getByTestId('tool-status').textContent?.trim()).toBe('details not kept');
    expect(screen.getByTestId('tool-not-kept')).toBeTruthy();
  });
});

describe('ToolRow of a task cleared before this load', () => {
  it('a second, collapsed row naming it shows what it kept, never "starting…"', async () => {
    // After Clear and a reload: no cleared event, and the list simply lacks the task.
    const { tasks } = liveTasks([]);
    await vi.waitFor(() => expect(tasks.loaded).toBe(true));
    const read = callRow('bg_1', {
      toolName: 'read_task_output',
      toolArgs: { task_id: 'bg_1' },
      taskId: 'bg_1',
      status: 'done',
      taskSnapshot: snapshot,
    });
    render(ToolRow, { message: read, tasks, primary: false });
    const row = screen.getByTestId('tool-row');
    expect(row.querySelector('button[aria-expanded]')!.getAttribute('aria-expanded')).toBe('false');
    expect(row.dataset.status).toBe('failed');
    expect(screen.getByTestId('tool-status').querySelector('.spinner')).toBeNull();
    expect(screen.getByTestId('tool-log-removed')).toBeTruthy();
    expect(screen.getByTestId('tool-exit').textContent).toBe('exit 2');
  });
});

describe("ToolRow: the person's words, never the model's", () => {
  it("a call's Result shows the person's words; the model's fenced text is not shown", async () => {
    const { tasks, emit } = liveTasks([]);
    emit('tasksCleared', { sessionId: 's1', removed: ['bg_1'] });
    const fenced = '<untrusted-output nonce="abc" source="bg_1">\nhello\n</untrusted-output nonce="abc">';
    render(ToolRow, {
      message: callRow('sleep 60', {
        taskId: 'bg_1',
        status: 'done',
        toolResult: `Command still running after 30 s. Follow it with read_task_output task_id="bg_1"\n${fenced}`,
        display: { kind: 'moved', taskId: 'bg_1', afterSeconds: 30, timeoutSeconds: 3600, requested: false },
        taskSnapshot: { ...snapshot, command: 'sleep 60', status: 'succeeded', exitCode: 0, adopted: true },
      }),
      tasks,
    });
    const row = screen.getByTestId('tool-row');
    expect(screen.getByTestId('tool-display').textContent).toBe(
      'Moved to the background after 30 s: it keeps running as bg_1 (hard timeout 1 h).',
    );
    expect(row.textContent).not.toMatch(/untrusted-output|read_task_output|Follow it with/);
    expect(screen.queryByTestId('tool-result')).toBeNull();
  });

  it('a rejected call says "Not run: you rejected it."', async () => {
    renderRow(
      callRow('rm -rf /', {
        status: 'rejected',
        toolResult: 'Not run: the person rejected `rm -rf /`. Do not run it again',
        display: { kind: 'not_run', rejected: true, reason: null },
      }),
    );
    await fireEvent.click(screen.getByTestId('tool-row').querySelector('button[aria-expanded]')!);
    expect(screen.getByTestId('tool-display').textContent).toBe('Not run: you rejected it.');
    expect(screen.getByTestId('tool-row').textContent).not.toContain('Do not run it again');
  });
});

describe('ToolRow: Background now', () => {
  it('offers "Background" on a running foreground command only, and asks the service to move it', async () => {
    const calls: string[] = [];
    const { api, tasks } = liveTasks([taskRow()], calls);
    await vi.waitFor(() => expect(tasks.task('bg_1')).toBeDefined());
    const transcript = new TranscriptState(api, 's1');
    render(ToolRow, { message: shellRow({ taskId: 'bg_1', status: 'done' }), tasks, transcript });
    await fireEvent.click(screen.getByTestId('tool-background'));
    expect(calls).toEqual(['bg_1']);
    cleanup();
    const other = liveTasks([taskRow({ foreground: false })]);
    await vi.waitFor(() => expect(other.tasks.task('bg_1')).toBeDefined());
    render(ToolRow, { message: shellRow({ taskId: 'bg_1' }), tasks: other.tasks, transcript });
    expect(screen.queryByTestId('tool-background')).toBeNull();
  });
});
