import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_LOG_READ_BYTES, readAgentRun, transcriptText } from '../../electron/subagents/agent-runs.js';
import { tempDir } from '../helpers.js';
import { taskRow } from '../task-row.js';

const at = '2026-12-01T10:00:00.000Z';
const none = { run: () => null };

describe('an agent run read back from its log', () => {
  it('joins streamed text, skips damaged lines, and takes the result from the end', async () => {
    const log = join(tempDir(), 'output.log');
    const lines = [
      { type: 'start', at, agent: 'researcher', prompt: 'find it' },
      { type: 'text', at, text: 'Look' },
      { type: 'text', at, text: 'ing.' },
      'not json {',
      { type: 'tool_call', at, id: 'c1', name: 'run_command', args: { command: 'ls' } },
      { type: 'bogus', at },
      { type: 'end', at, outcome: 'completed', result: 'Found it in a.ts', error: null },
    ];
    writeFileSync(log, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
    const run = await readAgentRun(taskRow({ id: 'agt_1', kind: 'agent', status: 'succeeded', logPath: log }), none);
    expect(run).toMatchObject({ status: 'completed', result: 'Found it in a.ts', error: null, truncated: false });
    expect(run.events.map((event) => event.type)).toEqual(['start', 'text', 'tool_call', 'end']);
    expect(run.events[1]).toMatchObject({ text: 'Looking.' });
  });

  it('reads a long log from its end, and a missing one as an empty run with the row’s error', async () => {
    const log = join(tempDir(), 'output.log');
    const filler = JSON.stringify({ type: 'text', at, text: 'x'.repeat(1000) });
    const end = JSON.stringify({ type: 'end', at, outcome: 'failed', result: null, error: 'no model is connected' });
    writeFileSync(
      log,
      `${Array.from({ length: AGENT_LOG_READ_BYTES / 1000 + 50 }, () => filler).join('\n')}\n${end}\n`,
    );
    const long = await readAgentRun(taskRow({ id: 'agt_2', kind: 'agent', status: 'failed', logPath: log }), none);
    expect(long).toMatchObject({ status: 'failed', truncated: true, error: 'no model is connected' });
    const gone = await readAgentRun(
      taskRow({ id: 'agt_3', kind: 'agent', status: 'lost', logPath: join(tempDir(), 'nope.log'), error: 'lost' }),
      none,
    );
    expect(gone).toEqual({ status: 'failed', result: null, error: 'lost', events: [], truncated: false });
  });
});

describe('an agent transcript as plain text', () => {
  it('reads as the task, the messages, the calls with their results, and the end; the tail by lines', () => {
    const log = [
      { type: 'start', at, agent: 'researcher', prompt: 'find it' },
      { type: 'text', at, text: 'Look' },
      { type: 'text', at, text: 'ing.' },
      { type: 'tool_call', at, id: 'c1', name: 'run_command', args: { command: 'ls' } },
      { type: 'tool_result', at, id: 'c1', status: 'done', text: 'a.ts\nb.ts', taskId: null },
      { type: 'usage', at, steps: 1, tokens: 10 },
      { type: 'end', at, outcome: 'killed', result: null, error: 'it was killed' },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
    expect(transcriptText(log)).toBe(
      'Task for researcher: find it\n\nLooking.\n\n→ run_command {"command":"ls"}\n  done: a.ts b.ts\n\nKilled: it was killed.',
    );
    expect(transcriptText(log, 1)).toBe('Killed: it was killed.');
    // Read from the middle of a log: the first, partial line is dropped.
    expect(
      transcriptText(`"x"}\n${JSON.stringify({ type: 'end', at, outcome: 'completed', result: 'R', error: null })}`),
    ).toBe('Completed.\nR');
  });
});
