import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, type LanguageModel, stepCountIs, streamText, tool, type ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startAnthropicServer, startOpenAiCompatibleServer, type FakeModelServer } from '../../e2e/fake-model/index.js';

const API_KEY = 'test-key-123';

interface Flavour {
  kind: FakeModelServer['kind'];
  start: () => Promise<FakeModelServer>;
  model: (server: FakeModelServer) => LanguageModel;
  keyHeader: string;
  keyValue: string;
  firstToolCallId: string;
}

const FLAVOURS: Flavour[] = [
  {
    kind: 'openai-compatible',
    start: startOpenAiCompatibleServer,
    model: (server) => createOpenAICompatible({ name: 'fake', baseURL: server.baseUrl, apiKey: API_KEY })('fake-model'),
    keyHeader: 'authorization',
    keyValue: `Bearer ${API_KEY}`,
    firstToolCallId: 'call_1',
  },
  {
    kind: 'anthropic',
    start: startAnthropicServer,
    model: (server) => createAnthropic({ baseURL: server.baseUrl, apiKey: API_KEY })('claude-sonnet-4-5'),
    keyHeader: 'x-api-key',
    keyValue: API_KEY,
    firstToolCallId: 'toolu_1',
  },
];

type Mode = 'stream' | 'generate';

interface RunOptions {
  model: LanguageModel;
  prompt: string;
  system?: string;
  tools?: ToolSet;
  maxRetries?: number;
  abortSignal?: AbortSignal;
}

interface RunResult {
  text: string;
  steps: number;
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  /** Streaming only: how many text and tool-input deltas arrived (the server splits both). */
  textDeltas: number;
  toolInputDeltas: number;
}

/** Runs one agent loop through the SDK, streaming or not; a stream's error part is thrown. */
async function run(mode: Mode, options: RunOptions): Promise<RunResult> {
  const common = {
    model: options.model,
    prompt: options.prompt,
    stopWhen: stepCountIs(5),
    ...(options.system === undefined ? {} : { system: options.system }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  };
  if (mode === 'generate') {
    const result = await generateText(common);
    const toolCalls = result.steps.flatMap((step) =>
      step.toolCalls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    );
    return { text: result.text, steps: result.steps.length, toolCalls, textDeltas: 0, toolInputDeltas: 0 };
  }
  const result = streamText({ ...common, onError: () => {} });
  let text = '';
  let steps = 0;
  let textDeltas = 0;
  let toolInputDeltas = 0;
  const toolCalls: RunResult['toolCalls'] = [];
  for await (const part of result.fullStream) {
    if (part.type === 'error') throw part.error;
    if (part.type === 'abort') throw new Error('stream aborted');
    if (part.type === 'finish-step') steps += 1;
    if (part.type === 'start-step') text = '';
    if (part.type === 'text-delta') {
      text += part.text;
      textDeltas += 1;
    }
    if (part.type === 'tool-input-delta') toolInputDeltas += 1;
    if (part.type === 'tool-call')
      toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
  }
  return { text, steps, toolCalls, textDeltas, toolInputDeltas };
}

function weatherTool(execute: (input: { city: string; days: number }) => Promise<unknown>) {
  return tool({
    description: 'Forecast for a city',
    inputSchema: jsonSchema<{ city: string; days: number }>({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number' } },
      required: ['city', 'days'],
      additionalProperties: false,
    }),
    execute,
  });
}

describe.each(FLAVOURS)('fake $kind model server', (flavour) => {
  let server: FakeModelServer;

  beforeEach(async () => {
    server = await flavour.start();
  });

  afterEach(async () => {
    await server.close();
  });

  it('serves on 127.0.0.1 under /v1', () => {
    expect(server.kind).toBe(flavour.kind);
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  describe.each<Mode>(['stream', 'generate'])('%s', (mode) => {
    it('answers with plain text and records the request', async () => {
      server.enqueue({ text: 'Hello from the fake model, in a few pieces.' });
      const result = await run(mode, { model: flavour.model(server), system: 'You are terse.', prompt: 'Say hello' });

      expect(result.text).toBe('Hello from the fake model, in a few pieces.');
      expect(server.requests).toHaveLength(1);
      expect(server.pending).toBe(0);
      const [request] = server.requests;
      expect(request?.stream).toBe(mode === 'stream');
      expect(request?.path).toMatch(flavour.kind === 'anthropic' ? /\/v1\/messages$/ : /\/v1\/chat\/completions$/);
      expect(request?.headers[flavour.keyHeader]).toBe(flavour.keyValue);
      expect(request?.transcript).toBe('system: You are terse.\nuser: Say hello');
      expect(request?.tools).toEqual([]);
    });

    it('runs a tool call, then answers with the tool result in view', async () => {
      const execute = vi.fn(async (input: { city: string; days: number }) => ({ forecast: 'sunny', city: input.city }));
      server.enqueue(
        { text: 'Let me look that up.', toolCalls: [{ name: 'get_weather', args: { city: 'Oslo', days: 2 } }] },
        { text: 'It will be sunny in Oslo.' },
      );
      const result = await run(mode, {
        model: flavour.model(server),
        prompt: 'Weather in Oslo?',
        tools: { get_weather: weatherTool(execute) },
      });

      expect(execute).toHaveBeenCalledTimes(1);
      expect(execute.mock.calls[0]?.[0]).toEqual({ city: 'Oslo', days: 2 });
      expect(result.toolCalls).toEqual([
        { toolCallId: flavour.firstToolCallId, toolName: 'get_weather', input: { city: 'Oslo', days: 2 } },
      ]);
      expect(result.text).toBe('It will be sunny in Oslo.');
      expect(result.steps).toBe(2);
      if (mode === 'stream') {
        expect(result.textDeltas).toBeGreaterThanOrEqual(4);
        expect(result.toolInputDeltas).toBeGreaterThanOrEqual(2);
      }

      const requests = await server.waitForRequests(2);
      expect(requests.map((request) => request.tools)).toEqual([['get_weather'], ['get_weather']]);
      const second = requests[1]?.transcript ?? '';
      expect(second).toContain('user: Weather in Oslo?');
      expect(second).toContain('assistant: Let me look that up.');
      expect(second).toContain(
        `assistant: [tool call ${flavour.firstToolCallId}] get_weather {"city":"Oslo","days":2}`,
      );
      expect(second).toContain(`tool: [tool result ${flavour.firstToolCallId}] {"forecast":"sunny","city":"Oslo"}`);
    });

    it('reassembles parallel tool calls and keeps ids given by the script', async () => {
      const execute = vi.fn(
        async (input: { city: string; days: number }) => `${input.city}: rain for ${input.days} days`,
      );
      server.enqueue(
        {
          toolCalls: [
            { name: 'get_weather', args: { city: 'Bergen', days: 3 } },
            { name: 'get_weather', args: { city: 'Tromsø ❄', days: 1 }, id: 'scripted_id' },
          ],
        },
        (request) => ({ text: request.transcript.includes('Bergen: rain for 3 days') ? 'saw both' : 'missing result' }),
      );
      const result = await run(mode, {
        model: flavour.model(server),
        prompt: 'Two cities',
        tools: { get_weather: weatherTool(execute) },
      });

      expect(execute.mock.calls.map((call) => call[0])).toEqual([
        { city: 'Bergen', days: 3 },
        { city: 'Tromsø ❄', days: 1 },
      ]);
      expect(result.toolCalls.map((call) => call.toolCallId)).toEqual([flavour.firstToolCallId, 'scripted_id']);
      expect(result.text).toBe('saw both');
      expect(server.requests[1]?.transcript).toContain('tool: [tool result scripted_id] Tromsø ❄: rain for 1 days');
    });

    it('retries after a 429 and succeeds', async () => {
      server.enqueue({ status: 429 }, { text: 'second time lucky' });
      const started = Date.now();
      const result = await run(mode, { model: flavour.model(server), prompt: 'hi', maxRetries: 2 });

      expect(result.text).toBe('second time lucky');
      expect(server.requests).toHaveLength(2);
      expect(server.pending).toBe(0);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('fails clearly when no scripted reply is left', async () => {
      await expect(run(mode, { model: flavour.model(server), prompt: 'hi', maxRetries: 0 })).rejects.toThrow(
        'fake model: no scripted reply left for request 1',
      );
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.transcript).toBe('user: hi');
    });
  });

  it('with retries on, an empty queue still fails fast and names the last request', async () => {
    await expect(run('generate', { model: flavour.model(server), prompt: 'hi', maxRetries: 2 })).rejects.toThrow(
      /no scripted reply left for request 3/,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('passes a scripted error body and headers through', async () => {
    const body =
      flavour.kind === 'anthropic'
        ? { type: 'error', error: { type: 'invalid_request_error', message: 'bad thing' } }
        : { error: { message: 'bad thing' } };
    server.enqueue({ status: 400, body, headers: { 'x-fake': 'yes' } });
    const response = await fetch(
      `${server.baseUrl}${flavour.kind === 'anthropic' ? '/messages' : '/chat/completions'}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [] }),
      },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('x-fake')).toBe('yes');
    expect(await response.json()).toEqual(body);
    await expect(run('generate', { model: flavour.model(server), prompt: 'x', maxRetries: 0 })).rejects.toThrow(
      /no scripted reply left for request 2/,
    );
  });

  it('answers malformed JSON and unknown paths with JSON errors and keeps serving', async () => {
    const path = flavour.kind === 'anthropic' ? '/messages' : '/chat/completions';
    const bad = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messages": [',
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('not valid JSON');
    const notObject = await fetch(`${server.baseUrl}${path}`, { method: 'POST', body: '[1,2]' });
    expect(notObject.status).toBe(400);
    const missing = await fetch(`${server.baseUrl}/nowhere`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(JSON.stringify(await missing.json())).toContain('no route');
    expect(server.requests).toHaveLength(0);

    server.enqueue({ text: 'still here' });
    expect((await run('stream', { model: flavour.model(server), prompt: 'ok?' })).text).toBe('still here');
  });

  it('hangs until the client gives up, and waitForRequests sees the request', async () => {
    server.enqueue({ hangMs: 10_000 });
    const controller = new AbortController();
    const running = run('stream', {
      model: flavour.model(server),
      prompt: 'slow',
      abortSignal: controller.signal,
      maxRetries: 0,
    });
    const [request] = await server.waitForRequests(1, 2_000);
    expect(request?.transcript).toBe('user: slow');
    controller.abort();
    await expect(running).rejects.toThrow(/abort/i);
  });

  it('drops the connection when a hang runs out', async () => {
    server.enqueue({ hangMs: 50 });
    await expect(run('generate', { model: flavour.model(server), prompt: 'x', maxRetries: 0 })).rejects.toThrow();
    expect(server.requests).toHaveLength(1);
  });

  it('waits for a delayed reply', async () => {
    server.enqueue({ text: 'late', delayMs: 100 });
    const started = Date.now();
    expect((await run('generate', { model: flavour.model(server), prompt: 'x' })).text).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('waitForRequests times out with a clear message, and close() ends waits', async () => {
    await expect(server.waitForRequests(1, 50)).rejects.toThrow('waited 50 ms for 1 requests, received 0');
    const waiting = server.waitForRequests(1, 5_000);
    await server.close();
    await expect(waiting).rejects.toThrow('server closed');
  });
});
