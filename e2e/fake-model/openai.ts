/** The OpenAI Chat Completions wire format, as `@ai-sdk/openai-compatible` sends and parses it. */
import { contentText, isRecord, safeJson, splitInto } from './text.js';
import type { Answer, Dialect, SseEvent } from './types.js';

function transcript(body: Record<string, unknown>): string {
  const lines: string[] = [];
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const role = typeof message['role'] === 'string' ? message['role'] : 'unknown';
    if (role === 'tool') {
      lines.push(`tool: [tool result ${String(message['tool_call_id'])}] ${contentText(message['content'])}`);
      continue;
    }
    const toolCalls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
    const text = contentText(message['content']);
    if (text !== '' || toolCalls.length === 0) lines.push(`${role}: ${text}`);
    for (const call of toolCalls) {
      if (!isRecord(call)) continue;
      const fn = isRecord(call['function']) ? call['function'] : {};
      lines.push(`${role}: [tool call ${String(call['id'])}] ${String(fn['name'])} ${String(fn['arguments'] ?? '')}`);
    }
  }
  return lines.join('\n');
}

function tools(body: Record<string, unknown>): string[] {
  const offered = Array.isArray(body['tools']) ? body['tools'] : [];
  const names: string[] = [];
  for (const entry of offered) {
    if (isRecord(entry) && isRecord(entry['function']) && typeof entry['function']['name'] === 'string')
      names.push(entry['function']['name']);
  }
  return names;
}

function usage(answer: Answer): Record<string, number> {
  return {
    prompt_tokens: answer.inputTokens,
    completion_tokens: answer.outputTokens,
    total_tokens: answer.inputTokens + answer.outputTokens,
  };
}

function finishReason(answer: Answer): string {
  return answer.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function json(answer: Answer): unknown {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.text ?? (answer.toolCalls.length > 0 ? null : ''),
  };
  if (answer.toolCalls.length > 0) {
    message['tool_calls'] = answer.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.argsJson },
    }));
  }
  return {
    id: `chatcmpl-fake-${answer.requestNumber}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [{ index: 0, message, finish_reason: finishReason(answer) }],
    usage: usage(answer),
  };
}

function events(answer: Answer): SseEvent[] {
  const base = {
    id: `chatcmpl-fake-${answer.requestNumber}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
  };
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): SseEvent => ({
    data: safeJson({ ...base, choices: [{ index: 0, delta, finish_reason: null }], ...extra }),
  });
  const out: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of splitInto(answer.text ?? '', 3)) out.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    // The opening delta names the call; the arguments follow in at least two pieces.
    out.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    for (const piece of splitInto(call.argsJson, 3))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push({
    data: safeJson({
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: finishReason(answer) }],
      usage: usage(answer),
    }),
  });
  out.push({ data: '[DONE]' });
  return out;
}

export const openAiDialect: Dialect = {
  kind: 'openai-compatible',
  path: '/v1/chat/completions',
  toolCallIdPrefix: 'call_',
  transcript,
  tools,
  errorBody: (status, message) => ({
    error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'fake_model_error', code: status },
  }),
  json,
  events,
};
