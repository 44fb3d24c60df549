// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { settledRow } from '../../lib/test-tasks.js';
import AgentTaskSummary from './AgentTaskSummary.svelte';

afterEach(cleanup);

describe('AgentTaskSummary', () => {
  it('says how the agent stands and what it used, and opens its transcript', async () => {
    const onOpen = vi.fn();
    const task = settledRow('agt_4', '2025-01-01T12:00:09.000Z', {
      kind: 'agent',
      status: 'stopped',
      pid: 0,
      agent: { name: 'researcher', description: 'd', depth: 1, steps: 3, maxSteps: 40, tokens: 1500, maxTokens: 2e6 },
    });
    render(AgentTaskSummary, { task, onOpen });
    const status = screen.getByTestId('agent-status');
    expect([status.dataset.status, status.textContent]).toEqual(['killed', 'killed']);
    expect(screen.getByTestId('agent-summary-use').textContent).toBe('3 of 40 model calls · 2k of 2M tokens');
    await fireEvent.click(screen.getByTestId('agent-summary-open'));
    expect(onOpen).toHaveBeenCalledOnce();
  });
});
