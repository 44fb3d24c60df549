/**
 * Fake model servers for end-to-end tests: real HTTP servers on 127.0.0.1 that speak enough of
 * the OpenAI Chat Completions and Anthropic Messages APIs for the AI SDK clients to run an agent
 * loop, answering from a queue of scripted replies and recording every request.
 *
 *     const model = await startOpenAiCompatibleServer();
 *     model.enqueue({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'Done.' });
 *     // point the client at model.baseUrl (http://127.0.0.1:PORT/v1), run the agent, then:
 *     expect(model.requests[1]?.transcript).toContain('[tool result call_1]');
 *     await model.close();
 *
 * Behaviour worth knowing:
 * - Each request takes the next reply. With none left it is still recorded, and answered with
 *   HTTP 500 "fake model: no scripted reply left for request N".
 * - Streaming is chosen by the request (`stream: true`); text is sent in a few deltas and each
 *   tool call's JSON arguments in at least two.
 * - Tool call ids not given in the script are generated per server: call_1, call_2, … for
 *   OpenAI, toolu_1, toolu_2, … for Anthropic.
 * - Error answers (`{ status }`, and the empty-queue 500) carry `retry-after-ms: 0` unless the
 *   script sets retry-after or retry-after-ms, so the SDK retries at once instead of backing off
 *   for seconds. Without `body`, the body is the API's own error shape.
 * - `delayMs` waits before the answer starts; `{ hangMs }` sends nothing for that long, then
 *   drops the connection (the SDK sees a network error, which it may retry).
 * - Malformed JSON gets a 400, other paths a 404; neither is recorded nor takes a reply.
 */
import { anthropicDialect } from './anthropic.js';
import { openAiDialect } from './openai.js';
import { startFakeModelServer } from './server.js';
import type { FakeModelServer } from './types.js';

export type { FakeModelServer, RecordedRequest, ScriptedReply } from './types.js';
export { enqueueRouted, parentRequests } from './routes.js';

/** Serves `POST /v1/chat/completions`; use `baseUrl` as `baseURL` of `createOpenAICompatible`. */
export function startOpenAiCompatibleServer(): Promise<FakeModelServer> {
  return startFakeModelServer(openAiDialect);
}

/** Serves `POST /v1/messages`; use `baseUrl` as `baseURL` of `createAnthropic`. */
export function startAnthropicServer(): Promise<FakeModelServer> {
  return startFakeModelServer(anthropicDialect);
}
