import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '@shared/schemas/subagent.js';
import {
  agentTone,
  agentTranscript,
  agentUse,
  agentUseLabel,
  startedByLabel,
  SUMMARY_MAX_CHARS,
  toolArgsSummary,
} from './agent-transcript.js';

const at = '2025-01-01T12:00:00.000Z';
const text = (piece: string): AgentEvent => ({ type: 'text', at, text: piece });
const call = (id: string, name: string, args: unknown): AgentEvent => ({ type: 'tool_call', at, id, name, args });
const answer = (id: string, status: 'done' | 'error' | 'rejected', body: string, taskId: string | null = null) =>
  ({ type: 'tool_result', at, id, status, text: body, taskId }) satisfies AgentEvent;

describe('agentTranscript', () => {
  it('joins consecutive text pieces into one message, and starts a new one after any other event', () => {
    const view = agentTranscript(
      [
        { type: 'start', at, agent: 'researcher', prompt: 'Find the flaky test' },
        text('Look'),
        text('ing at '),
        text('the suite.'),
        call('c1', 'run_command', { command: 'npm test' }),
        answer('c1', 'done', '3 passed'),
        text('All green'),
        { type: 'usage', at, steps: 1, tokens: 900 },
        text('Done.'),
      ],
      true,
    );
    expect(view.start).toEqual({ agent: 'researcher', prompt: 'Find the flaky test' });
    expect(view.items.map((item) => (item.kind === 'message' ? item.text : `[${item.name}]`))).toEqual([
      'Looking at the suite.',
      '[run_command]',
      'All green',
      'Done.',
    ]);
    expect(view.usage).toEqual({ steps: 1, tokens: 900 });
  });

  it('keeps each item’s key as the transcript grows, so rows keep their open state', () => {
    const events = [text('a'), call('c1', 'run_command', { command: 'ls' })];
    const before = agentTranscript(events, true).items.map((item) => item.key);
    const after = agentTranscript([...events, answer('c1', 'done', 'x'), text('b'), text('c')], true);
    expect(after.items.map((item) => item.key).slice(0, 2)).toEqual(before);
    expect(after.items).toHaveLength(3);
  });

  it('pairs each answer with its call: status, text and the task it started', () => {
    const view = agentTranscript(
      [
        call('c1', 'run_command', { command: 'npm run build', background: true }),
        call('c2', 'run_command', { command: 'rm -rf /' }),
        call('c3', 'read_task_output', { task_id: 'bg_4' }),
        answer('c2', 'rejected', 'The person rejected it'),
        answer('c1', 'done', 'Started bg_4', 'bg_4'),
      ],
      true,
    );
    const rows = view.items.filter((item) => item.kind === 'tool');
    expect(rows.map((row) => [row.id, row.status, row.result, row.taskId])).toEqual([
      ['c1', 'done', 'Started bg_4', 'bg_4'],
      ['c2', 'rejected', 'The person rejected it', null],
      ['c3', 'running', null, null],
    ]);
    expect(rows[0]!.summary).toBe('npm run build');
  });

  it('reads a call left unanswered as cancelled once the run has ended, or is no longer running', () => {
    const events = [call('c1', 'sleep', { seconds: 60 })];
    const ended: AgentEvent = { type: 'end', at, outcome: 'killed', result: null, error: 'it was killed' };
    expect(agentTranscript(events, true).items[0]).toMatchObject({ status: 'running' });
    expect(agentTranscript(events, false).items[0]).toMatchObject({ status: 'cancelled' });
    expect(agentTranscript([...events, ended], true).items[0]).toMatchObject({ status: 'cancelled' });
  });

  it('shows an answer whose call is before a truncated start, and no prompt', () => {
    const view = agentTranscript([answer('c0', 'error', 'exit 1'), text('Retrying')], true);
    expect(view.start).toBeNull();
    expect(view.items[0]).toMatchObject({ kind: 'tool', name: 'earlier call', status: 'error', result: 'exit 1' });
    expect(view.usage).toBeNull();
  });

  it('drops whitespace-only messages between calls', () => {
    const view = agentTranscript([text('\n'), call('c1', 'task_list', {}), text('  '), text('\n')], true);
    expect(view.items.map((item) => item.kind)).toEqual(['tool']);
  });
});

describe('toolArgsSummary', () => {
  it('says the command, the path or the task id rather than every field', () => {
    expect(toolArgsSummary({ command: 'npm test', background: true, expected_seconds: 30 })).toBe('npm test');
    expect(toolArgsSummary({ path: 'src/a.ts', limit: 10 })).toBe('src/a.ts');
    expect(toolArgsSummary({ task_id: 'bg_3', wait: true })).toBe('bg_3');
  });

  it('falls back to the scalar fields, skipping nested ones', () => {
    expect(toolArgsSummary({ seconds: 90, reason: 'build', ready: { port: 3000 } })).toBe('seconds: 90, reason: build');
    expect(toolArgsSummary({})).toBe('');
    expect(toolArgsSummary(null)).toBe('');
    expect(toolArgsSummary('raw')).toBe('raw');
    expect(toolArgsSummary([1, 2])).toBe('[1,2]');
  });

  it('keeps line breaks and escapes in the string (the view shows them as tokens), and cuts long ones whole', () => {
    expect(toolArgsSummary({ command: 'echo a\necho \u001b[31m' })).toBe('echo a\necho \u001b[31m');
    const long = toolArgsSummary({ command: `${'x'.repeat(SUMMARY_MAX_CHARS - 2)}😀😀😀` });
    expect(Array.from(long)).toHaveLength(SUMMARY_MAX_CHARS);
    expect(long.endsWith('😀…')).toBe(true);
    expect(toolArgsSummary({ command: 'y'.repeat(SUMMARY_MAX_CHARS) })).toBe('y'.repeat(SUMMARY_MAX_CHARS));
  });
});

describe('usage wording', () => {
  const info = { steps: 12, maxSteps: 40, tokens: 48_000, maxTokens: 1_000_000 };

  it('reads what the run used of its limits', () => {
    expect(agentUseLabel(info)).toBe('12 of 40 model calls · 48k of 1M tokens');
    expect(agentUseLabel({ steps: 0, maxSteps: 1, tokens: 950, maxTokens: 1_500_000 })).toBe(
      '0 of 1 model call · 950 of 1.5M tokens',
    );
  });

  it('takes the transcript’s usage when it ran ahead of the row, never going back', () => {
    expect(agentUse(info, { steps: 13, tokens: 52_000 })).toEqual({ ...info, steps: 13, tokens: 52_000 });
    expect(agentUse(info, { steps: 3, tokens: 100 })).toEqual(info);
    expect(agentUse(info, null)).toEqual(info);
    expect(agentUse(null, { steps: 3, tokens: 100 })).toBeNull();
  });

  it('colours each agent status as its task status, and names the owner', () => {
    expect(['queued', 'running', 'completed', 'failed', 'killed'].map((s) => agentTone(s as never))).toEqual([
      'queued',
      'running',
      'succeeded',
      'failed',
      'stopped',
    ]);
    expect(startedByLabel('agt_2')).toBe('started by agt_2');
  });
});
