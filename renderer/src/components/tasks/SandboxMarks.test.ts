// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/svelte';
import type { SandboxRefusal } from '@shared/schemas/sandbox.js';
import { settledRow, taskRow } from '../../lib/test-tasks.js';
import TaskCard from './TaskCard.svelte';
import FinishedRow from './FinishedRow.svelte';
import SandboxRefusals from './SandboxRefusals.svelte';

const refusal = (patch: Partial<SandboxRefusal>): SandboxRefusal => ({
  kind: 'path',
  target: '/var/tmp/x',
  detail: 'openat',
  at: '2025-01-01T12:00:05.000Z',
  ...patch,
});

const card = (row = taskRow('bg_1')) =>
  render(TaskCard, {
    task: row,
    now: Date.parse('2025-01-01T12:00:10.000Z'),
    stopping: false,
    stopError: null,
    silentFor: null,
    onOpen: () => {},
    onStop: () => {},
  });

afterEach(() => cleanup());

describe('sandbox marks on tasks', () => {
  it('a card says sandboxed only when the task ran in the sandbox, with its first refusal', () => {
    card();
    expect(screen.queryByTestId('task-sandboxed')).toBeNull();
    expect(screen.queryByTestId('task-card-refusals')).toBeNull();
    cleanup();
    card(
      taskRow('bg_2', {
        sandboxed: true,
        sandboxRefusals: [refusal({}), refusal({ kind: 'host', target: '127.0.0.1:8080', detail: 'not allowed' })],
      }),
    );
    expect(screen.getByTestId('task-sandboxed').textContent).toBe('sandboxed');
    expect(screen.getByTestId('task-card-refusals').textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'Refused by the sandbox: write /var/tmp/x (openat) and 1 more',
    );
  });

  it('a finished row carries the mark and the count of refusals', () => {
    render(FinishedRow, {
      task: settledRow('bg_3', '2025-01-01T12:01:00.000Z', { sandboxed: true, sandboxRefusals: [refusal({})] }),
      onOpen: () => {},
    });
    expect(screen.getByTestId('finished-row-sandboxed').textContent).toBe('sandboxed · 1 refused');
  });

  it('the task view lists each refusal as plain text: markup stays text, hidden characters show as tokens', () => {
    const { container } = render(SandboxRefusals, {
      task: taskRow('bg_4', {
        sandboxed: true,
        sandboxRefusals: [
          refusal({ target: '/var/tmp/<img src=x onerror=alert(1)>' }),
          refusal({ kind: 'host', target: '127.0.0.1:8080', detail: 'not on the allow list' }),
          refusal({ target: '/tmp/\u202eevil' }),
        ],
      }),
    });
    const items = screen.getAllByTestId('task-refusal');
    expect(screen.getByTestId('task-refusals').querySelector('h3')!.textContent).toBe('Refused by the sandbox');
    expect(items[0]!.textContent).toContain('write /var/tmp/<img src=x onerror=alert(1)> (openat)');
    expect(container.querySelector('img')).toBeNull();
    expect(items[1]!.textContent).toContain('connect 127.0.0.1:8080 (not on the allow list)');
    expect(items[2]!.querySelector('[data-testid="escape-token"]')?.getAttribute('data-code')).toBe(String(0x202e));
  });

  it('the task view shows nothing when nothing was refused', () => {
    render(SandboxRefusals, { task: taskRow('bg_5', { sandboxed: true }) });
    expect(screen.queryByTestId('task-refusals')).toBeNull();
  });
});
