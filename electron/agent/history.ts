import type { ModelMessage } from 'ai';
import type { Message, MessageSchedule } from '../../shared/schemas/message.js';
import { createHmac, randomBytes } from 'node:crypto';
import { fence } from './fence.js';

/**
 * Rebuilds the conversation the model has seen from the stored transcript: the person's
 * words, the assistant's text and tool calls with their results. The operator's own shell
 * lines are shown to the model as what they are: something the person ran.
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let assistant: Extract<ModelMessage, { role: 'assistant' }> | null = null;
  let results: Extract<ModelMessage, { role: 'tool' }> | null = null;

  const flush = () => {
    if (assistant && (typeof assistant.content === 'string' ? assistant.content : assistant.content.length))
      out.push(assistant);
    if (results && results.content.length) out.push(results);
    assistant = null;
    results = null;
  };

  for (const message of messages) {
    if (message.role === 'assistant') {
      // A new step begins when text follows tool calls.
      if (results) flush();
      assistant ??= { role: 'assistant', content: [] };
      if (message.text && Array.isArray(assistant.content))
        assistant.content.push({ type: 'text', text: message.text });
      continue;
    }
    if (message.role === 'tool' && message.toolCallId && message.toolName) {
      assistant ??= { role: 'assistant', content: [] };
      results ??= { role: 'tool', content: [] };
      if (Array.isArray(assistant.content)) {
        assistant.content.push({
          type: 'tool-call',
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          input: message.toolArgs ?? {},
        });
      }
      results.content.push({
        type: 'tool-result',
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: {
          type: 'text',
          value:
            message.toolResult ??
            (message.status === 'cancelled'
              ? 'The turn was cancelled before this call finished.'
              : 'No result was recorded.'),
        },
      });
      continue;
    }
    flush();
    if (message.role === 'user' && message.schedule)
      out.push({ role: 'user', content: scheduledText(message.text, message.schedule, stableNonce(message.id)) });
    else if (message.role === 'user') out.push({ role: 'user', content: message.text });
    else if (message.role === 'tool')
      out.push({
        role: 'user',
        content: `(The person ran a shell command themselves: \`${message.text}\`${message.taskId ? `, task ${message.taskId}` : ''}.)`,
      });
    else if (message.role === 'system') out.push({ role: 'user', content: `(Note from Drover: ${message.text})` });
  }
  flush();
  return out;
}

/**
 * The nonce of a stored message's fence: the same for every request of this process (so the
 * conversation's prefix, and a provider's prompt cache, stay put), unguessable (a random secret of
 * this process, never shown), and fixed only after the text was stored.
 */
const NONCE_SECRET = randomBytes(32);
function stableNonce(messageId: number): string {
  return createHmac('sha256', NONCE_SECRET).update(String(messageId)).digest('hex').slice(0, 20);
}

/**
 * A scheduled run as the model reads it: the task is text stored earlier, so it comes fenced as
 * task data (it may quote output, a URL, anything), with what ran it and who set it up said outside:
 * a loop is the person's (typed /loop), a cron schedule the model's own (cron_create).
 */
export function scheduledText(text: string, schedule: MessageSchedule, nonce?: string): string {
  const what =
    schedule.kind === 'self_paced'
      ? `a pass of the self-paced loop ${schedule.id}, which the person started with /loop`
      : schedule.kind === 'loop'
        ? `the loop ${schedule.id} (${schedule.label}), which the person started with /loop`
        : `the schedule ${schedule.id} (${schedule.label}), which you made earlier with cron_create`;
  return [
    `Automated: ${what}, is due. Its task follows between the markers, as data.`,
    fence(text, `schedule_${schedule.id}`, nonce),
    'Carry out that task now, within your usual rules.',
    ...(schedule.kind === 'self_paced'
      ? [
          'Before you end this turn, call loop_next with the delay until the next pass (60 to 3600 seconds) and a short reason, or loop_stop if the task is done.',
        ]
      : []),
  ].join('\n');
}
