import type { AgentEvent, AgentRowInfo, AgentStatus } from '@shared/schemas/subagent.js';
import { compactCount } from '@shared/domain/budget-notice.js';

/**
 * An agent task's transcript as its view shows it (issue #17): the events of its log read into
 * the prompt, messages (streamed text pieces joined), tool rows (each call with its answer), and
 * the last usage. Pure, so the view only renders.
 */

/** How a tool call stands: answered (done, error, rejected), still at work, or left unanswered when the run ended. */
export type AgentToolStatus = 'running' | 'done' | 'error' | 'rejected' | 'cancelled';

export interface AgentMessageItem {
  kind: 'message';
  /** Stable while the transcript grows: the message's first event's place in the list. */
  key: string;
  text: string;
}

export interface AgentToolItem {
  kind: 'tool';
  key: string;
  /** The call's id (the model's). */
  id: string;
  name: string;
  args: unknown;
  /** The arguments on one line: the command, the path, or the scalar fields. */
  summary: string;
  status: AgentToolStatus;
  /** What the call answered, for the person; null until it answers. */
  result: string | null;
  /** The task the call started (it belongs to the agent). */
  taskId: string | null;
}

export type AgentItem = AgentMessageItem | AgentToolItem;

export interface AgentTranscriptView {
  /** The task it was given and the definition it runs; null when the transcript starts later (truncated). */
  start: { agent: string; prompt: string } | null;
  items: AgentItem[];
  /** What the run had used at its last finished model call; null before the first. */
  usage: { steps: number; tokens: number } | null;
}

/** The longest one-line summary of a call's arguments, in characters. */
export const SUMMARY_MAX_CHARS = 160;

/** The arguments that say most about a call, in this order: the first one that holds text is its summary. */
const TELLING_ARGS = [
  'command',
  'path',
  'file_path',
  'pattern',
  'query',
  'url',
  'task_id',
  'description',
  'subject',
  'prompt',
] as const;

/**
 * Reads the events (oldest first) into what the view shows. Consecutive text pieces join into one
 * message; any other event ends it. A call with no answer is running while the run is, and
 * cancelled once it has ended. An answer whose call is not in the transcript (it starts later) still
 * shows, as a row of its own.
 */
export function agentTranscript(events: readonly AgentEvent[], running: boolean): AgentTranscriptView {
  let start: AgentTranscriptView['start'] = null;
  let usage: AgentTranscriptView['usage'] = null;
  const items: AgentItem[] = [];
  const calls = new Map<string, AgentToolItem>();
  let message: AgentMessageItem | null = null;
  const ended = events.some((event) => event.type === 'end');
  for (const [index, event] of events.entries()) {
    if (event.type !== 'text') message = null;
    switch (event.type) {
      case 'start':
        start = { agent: event.agent, prompt: event.prompt };
        break;
      case 'text':
        if (message) message.text += event.text;
        else {
          message = { kind: 'message', key: `m${index}`, text: event.text };
          items.push(message);
        }
        break;
      case 'tool_call': {
        const row: AgentToolItem = {
          kind: 'tool',
          key: `t${index}`,
          id: event.id,
          name: event.name,
          args: event.args,
          summary: toolArgsSummary(event.args),
          status: running && !ended ? 'running' : 'cancelled',
          result: null,
          taskId: null,
        };
        calls.set(event.id, row);
        items.push(row);
        break;
      }
      case 'tool_result': {
        const row = calls.get(event.id);
        if (row) {
          row.status = event.status;
          row.result = event.text;
          row.taskId = event.taskId;
        } else {
          items.push({
            kind: 'tool',
            key: `t${index}`,
            id: event.id,
            name: 'earlier call',
            args: null,
            summary: '',
            status: event.status,
            result: event.text,
            taskId: event.taskId,
          });
        }
        break;
      }
      case 'usage':
        usage = { steps: event.steps, tokens: event.tokens };
        break;
      case 'end':
        break;
    }
  }
  // Whitespace the model streamed between tool calls is no message.
  return { start, items: items.filter((item) => item.kind !== 'message' || item.text.trim() !== ''), usage };
}

/**
 * A call's arguments on one line: the first telling argument that holds text (a command, a path),
 * else its scalar fields as `key: value`, cut at SUMMARY_MAX_CHARS. Line breaks and other control
 * characters stay in the string: the view shows them as tokens, so the line never lies about what ran.
 */
export function toolArgsSummary(args: unknown): string {
  if (args === null || args === undefined) return '';
  if (typeof args !== 'object') return cut(String(args));
  if (Array.isArray(args)) return cut(JSON.stringify(args) ?? '');
  const record = args as Record<string, unknown>;
  for (const key of TELLING_ARGS) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return cut(value);
  }
  const fields = Object.entries(record)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : String(value)}`);
  return cut(fields.join(', '));
}

/** At most SUMMARY_MAX_CHARS characters (whole code points), with an ellipsis when cut. */
function cut(text: string): string {
  const chars = Array.from(text);
  return chars.length <= SUMMARY_MAX_CHARS ? text : `${chars.slice(0, SUMMARY_MAX_CHARS - 1).join('')}…`;
}

/** What the run used of its limits. */
export interface AgentUse {
  steps: number;
  maxSteps: number;
  tokens: number;
  maxTokens: number;
}

/**
 * The row's figures, brought up to the transcript's last usage when that is newer (the transcript
 * can run ahead of the row between row events); null when the row has none.
 */
export function agentUse(
  info: Pick<AgentRowInfo, 'steps' | 'maxSteps' | 'tokens' | 'maxTokens'> | null,
  usage: { steps: number; tokens: number } | null,
): AgentUse | null {
  if (!info) return null;
  return {
    steps: Math.max(info.steps, usage?.steps ?? 0),
    maxSteps: info.maxSteps,
    tokens: Math.max(info.tokens, usage?.tokens ?? 0),
    maxTokens: info.maxTokens,
  };
}

/** "12 of 40 model calls · 48k of 1M tokens". */
export function agentUseLabel(use: AgentUse): string {
  return `${use.steps} of ${use.maxSteps} model ${use.maxSteps === 1 ? 'call' : 'calls'} · ${compactCount(use.tokens)} of ${compactCount(use.maxTokens)} tokens`;
}

/** A Chip tone for an agent's status: the task statuses' colours. */
const AGENT_TONES: Record<AgentStatus, string> = {
  queued: 'queued',
  running: 'running',
  completed: 'succeeded',
  failed: 'failed',
  killed: 'stopped',
};

export function agentTone(status: AgentStatus): string {
  return AGENT_TONES[status];
}

/** "started by agt_2": the agent whose run started this task. */
export function startedByLabel(ownerTaskId: string): string {
  return `started by ${ownerTaskId}`;
}
