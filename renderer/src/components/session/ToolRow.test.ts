// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import type { Message } from '@shared/contract.js';
import { visibleCommand } from '@shared/domain/commands.js';
import type { DroverApi } from '../../lib/api.js';
import { TasksState } from '../../lib/state/tasks.svelte.js';
import ToolRow from './ToolRow.svelte';

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
    status: 'running',
    automated: false,
    createdAt: '2025-01-01T12:00:00.000Z',
    ...patch,
  };
}

function renderRow(message: Message, onGoToRequest?: () => void) {
  const api = { listTasks: async () => ({ tasks: [], runningCount: 0 }), on: () => () => {} } as unknown as DroverApi;
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
