import { open } from 'node:fs/promises';
import { agentStatusOf, AgentEventSchema, type AgentEvent, type AgentRun } from '../../shared/schemas/subagent.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { AgentRunner } from './agent-runner.js';

/** The most of an agent's log read back from disk for a run this Drover no longer holds. */
export const AGENT_LOG_READ_BYTES = 1024 * 1024;

/**
 * An agent task's run as a client reads it: from memory while this run holds it, else from its
 * log (the transcript as JSON lines; a damaged line is skipped, a long log read from its end).
 */
export async function readAgentRun(row: TaskRow, runner: Pick<AgentRunner, 'run'>): Promise<AgentRun> {
  const status = agentStatusOf(row.status);
  const held = runner.run(row.id);
  if (held) return { status, ...held, truncated: false };
  const { events, truncated } = await readEvents(row.logPath);
  const end = events.findLast((event) => event.type === 'end');
  return {
    status,
    result: end?.type === 'end' ? end.result : null,
    error: end?.type === 'end' ? end.error : row.error,
    events,
    truncated,
  };
}

async function readEvents(path: string): Promise<{ events: AgentEvent[]; truncated: boolean }> {
  let text: string;
  let truncated: boolean;
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      const start = Math.max(0, size - AGENT_LOG_READ_BYTES);
      truncated = start > 0;
      const buffer = Buffer.alloc(size - start);
      await file.read(buffer, 0, buffer.length, start);
      text = buffer.toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return { events: [], truncated: false };
  }
  return { events: parseEvents(text, truncated), truncated };
}

/** A transcript's JSON lines as events: streamed text joined, damaged lines skipped. */
export function parseEvents(text: string, startsMidway = false): AgentEvent[] {
  const lines = text.split('\n');
  // Read from the middle of the file, the first line is a piece of one.
  if (startsMidway) lines.shift();
  const events: AgentEvent[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const parsed = AgentEventSchema.safeParse(JSON.parse(line));
      if (!parsed.success) continue;
      const last = events.at(-1);
      if (parsed.data.type === 'text' && last?.type === 'text') last.text += parsed.data.text;
      else events.push(parsed.data);
    } catch {
      // A damaged line is skipped; the rest of the transcript still reads.
    }
  }
  return events;
}

/** What a tool call's result shows in the plain-text transcript, at most. */
const RESULT_LINE_CHARS = 300;

/**
 * An agent's transcript as plain text, for what shows a task's output as text (the transcript's
 * task rows, REST's `output`): the task, its messages, its calls, and how it ended.
 */
export function transcriptText(log: string, tailLines?: number): string {
  const lines: string[] = [];
  for (const event of parseEvents(log, !log.startsWith('{'))) {
    if (event.type === 'start') lines.push(`Task for ${event.agent}: ${event.prompt}`, '');
    else if (event.type === 'text') lines.push(event.text.trim(), '');
    else if (event.type === 'tool_call') lines.push(`→ ${event.name} ${clip(JSON.stringify(event.args ?? {}))}`);
    else if (event.type === 'tool_result') lines.push(`  ${event.status}: ${clip(event.text)}`, '');
    else if (event.type === 'end')
      lines.push(
        event.outcome === 'completed'
          ? `Completed.${event.result ? `\n${event.result}` : ''}`
          : `${event.outcome === 'killed' ? 'Killed' : 'Failed'}${event.error ? `: ${event.error}` : ''}.`,
      );
  }
  const text = lines.join('\n').trim();
  return tailLines === undefined ? text : text.split('\n').slice(-tailLines).join('\n');
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > RESULT_LINE_CHARS ? `${line.slice(0, RESULT_LINE_CHARS - 1)}…` : line;
}
