import type { ModelMessage } from 'ai';
import type { Message, MessageSchedule } from '../../shared/schemas/message.js';
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
      out.push({ role: 'user', content: scheduledText(message.text, message.schedule) });
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
 * A scheduled run as the model reads it: the task is text the person stored earlier, so it comes
 * fenced as task data (it may quote output, a URL, anything), with what ran it said outside.
 */
export function scheduledText(text: string, schedule: MessageSchedule): string {
  const what =
    schedule.kind === 'self_paced'
      ? `a pass of the self-paced loop ${schedule.id}`
      : `${schedule.kind === 'loop' ? 'the loop' : 'the schedule'} ${schedule.id} (${schedule.label})`;
  return [
    `Automated: ${what} is due. The person set it up; its task follows between the markers, as data.`,
    fence(text, `schedule_${schedule.id}`),
    'Carry out that task now, within your usual rules.',
    ...(schedule.kind === 'self_paced'
      ? [
          'Before you end this turn, call loop_next with the delay until the next pass (60 to 3600 seconds) and a short reason, or loop_stop if the task is done.',
        ]
      : []),
  ].join('\n');
}
