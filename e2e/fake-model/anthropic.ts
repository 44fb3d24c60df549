/** The Anthropic Messages wire format, as `@ai-sdk/anthropic` sends and parses it. */
import { contentText, isRecord, safeJson, splitInto } from './text.js';
import type { Answer, Dialect, SseEvent } from './types.js';

function blockLines(role: string, block: unknown): string[] {
  if (typeof block === 'string') return [`${role}: ${block}`];
  if (!isRecord(block)) return [`${role}: ${safeJson(block)}`];
  switch (block['type']) {
    case 'text':
      return [`${role}: ${String(block['text'] ?? '')}`];
    case 'tool_use':
      return [`${role}: [tool call ${String(block['id'])}] ${String(block['name'])} ${safeJson(block['input'] ?? {})}`];
    case 'tool_result': {
      const label = block['is_error'] === true ? 'tool error' : 'tool result';
      return [`tool: [${label} ${String(block['tool_use_id'])}] ${contentText(block['content'])}`];
    }
    case 'thinking':
    case 'redacted_thinking':
      return [];
    default:
      return [`${role}: [${String(block['type'])}]`];
  }
}

function transcript(body: Record<string, unknown>): string {
  const lines: string[] = [];
  const system = body['system'];
  if (system != null) lines.push(`system: ${contentText(system)}`);
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const role = typeof message['role'] === 'string' ? message['role'] : 'unknown';
    const content = message['content'];
    if (Array.isArray(content)) for (const block of content) lines.push(...blockLines(role, block));
    else lines.push(`${role}: ${contentText(content)}`);
  }
  return lines.join('\n');
}

function tools(body: Record<string, unknown>): string[] {
  const offered = Array.isArray(body['tools']) ? body['tools'] : [];
  const names: string[] = [];
  for (const entry of offered) if (isRecord(entry) && typeof entry['name'] === 'string') names.push(entry['name']);
  return names;
}

function stopReason(answer: Answer): string {
  return answer.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

/** A text block is sent when there is text, or when there is nothing else to send. */
function hasTextBlock(answer: Answer): boolean {
  return answer.text !== undefined && (answer.text !== '' || answer.toolCalls.length === 0);
}

function contentBlocks(answer: Answer): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (hasTextBlock(answer)) blocks.push({ type: 'text', text: answer.text });
  for (const call of answer.toolCalls)
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args ?? {} });
  return blocks;
}

function json(answer: Answer): unknown {
  return {
    id: `msg_fake_${answer.requestNumber}`,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: contentBlocks(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: { input_tokens: answer.inputTokens, output_tokens: answer.outputTokens },
  };
}

function events(answer: Answer): SseEvent[] {
  const out: SseEvent[] = [];
  const emit = (type: string, payload: Record<string, unknown>): void => {
    out.push({ event: type, data: safeJson({ type, ...payload }) });
  };
  emit('message_start', {
    message: {
      id: `msg_fake_${answer.requestNumber}`,
      type: 'message',
      role: 'assistant',
      model: answer.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: answer.inputTokens, output_tokens: 1 },
    },
  });
  emit('ping', {});
  let index = 0;
  if (hasTextBlock(answer)) {
    emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of splitInto(answer.text ?? '', 3))
      emit('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    emit('content_block_stop', { index });
    index += 1;
  }
  for (const call of answer.toolCalls) {
    // The block opens with an empty input, as the real API does; the JSON follows in at least two pieces.
    emit('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    for (const piece of splitInto(call.argsJson, 3))
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    emit('content_block_stop', { index });
    index += 1;
  }
  emit('message_delta', {
    delta: { stop_reason: stopReason(answer), stop_sequence: null },
    usage: { output_tokens: answer.outputTokens },
  });
  emit('message_stop', {});
  return out;
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status === 401) return 'authentication_error';
  if (status === 400) return 'invalid_request_error';
  if (status === 404) return 'not_found_error';
  return 'api_error';
}

export const anthropicDialect: Dialect = {
  kind: 'anthropic',
  path: '/v1/messages',
  toolCallIdPrefix: 'toolu_',
  transcript,
  tools,
  errorBody: (status, message) => ({ type: 'error', error: { type: errorType(status), message } }),
  json,
  events,
};
