import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { generateText } from 'ai';
import { createServices, type Services } from '../../electron/core/services.js';
import { createLanguageModel, backoffDelay, withRetries, type RetryNotice } from '../../electron/agent/providers.js';
import { describeModelError } from '../../electron/agent/model-errors.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from '../../e2e/fake-model/index.js';
import { tempDir, until } from '../helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port on which nothing listens: the model server is dead. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function setup() {
  const model: FakeModelServer = await startOpenAiCompatibleServer();
  const dataDir = tempDir();
  const services: Services = createServices({
    dataDir,
    version: 't',
    host: 'headless',
    workingDir: dataDir,
    env: {},
    warn: () => {},
  });
  cleanups.push(async () => {
    await services.shutdown();
    await model.close();
  });
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const result = await services.handle(name, input);
    if (!result.ok) throw Object.assign(new Error(`${name}: ${result.error.message}`), { code: result.error.code });
    return result.value as T;
  };
  await call('updateSettings', {
    provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake-model', streaming: true },
  });
  const session = await call<{ id: string }>('createSession', {});
  const events: { name: string; payload: Record<string, unknown> }[] = [];
  services.bus.subscribe((name, payload) => events.push({ name, payload: payload as Record<string, unknown> }));
  const turnsEnded = () => events.filter((e) => e.name === 'turnChanged' && e.payload.busy === false).length;
  return { model, services, session, call, events, turnsEnded };
}

describe('a failing model server', () => {
  it('tells each retry as it happens, ends with one error said once, and Retry reruns the turn', async () => {
    const { model, services, session, call, events, turnsEnded } = await setup();
    model.enqueue({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    await call('postMessage', { sessionId: session.id, text: 'hello' });
    await until(() => turnsEnded() === 1, 'the turn to end');

    const retries = events.filter((e) => e.name === 'turnRetrying').map((e) => e.payload);
    expect(retries).toEqual([1, 2, 3].map((retry) => expect.objectContaining({ retry, retries: 3 })));
    expect(retries[0]!.reason).toBe('Model server answered HTTP 503');
    expect(model.requests).toHaveLength(4);

    const notes = services.sessions.messages(session.id).filter((m) => m.role === 'system');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.text).toMatch(/^The model request failed: HTTP 503 from the model server: .* \(tried 4 times\)$/);
    // Each part once: no sentence repeated inside the note.
    expect(notes[0]!.text.match(/HTTP 503 from the model server/g)).toHaveLength(1);
    expect(notes[0]!.text.match(/tried/g)).toHaveLength(1);
    const status = await call<{ error: string | null }>('agentStatus', { sessionId: session.id });
    expect(status.error).toContain('tried 4 times');

    model.enqueue({ text: 'Back again.' });
    await expect(call('retryTurn', { sessionId: session.id })).resolves.toEqual({ retrying: true });
    // A second Retry while the first runs is refused, never a second turn.
    await expect(call('retryTurn', { sessionId: session.id })).rejects.toMatchObject({ code: 'conflict' });
    await until(() => turnsEnded() === 2, 'the retried turn to end');
    const messages = services.sessions.messages(session.id);
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'Back again.', status: 'done' });
    expect(model.requests[4]!.transcript).toContain('hello');
    expect((await call<{ error: string | null }>('agentStatus', { sessionId: session.id })).error).toBeNull();
    await expect(call('retryTurn', { sessionId: session.id })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('retries a dead server with the policy it is given and says it is not answering, once', async () => {
    const port = await deadPort();
    const notices: RetryNotice[] = [];
    const model = withRetries(
      createLanguageModel(
        { kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' } as never,
        null,
      ),
      { signal: new AbortController().signal, onRetry: (notice) => notices.push(notice), delayMs: () => 0 },
    );
    const failure = await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch((error: unknown) => error);
    expect(notices.map((n) => n.reason)).toEqual(Array(3).fill('Model server not answering'));
    const text = describeModelError(failure);
    expect(text).toMatch(
      new RegExp(`^the model server at http://127.0.0.1:${port}/v1/chat/completions is not answering`),
    );
    expect(text).toMatch(/ECONNREFUSED/);
    expect(text.endsWith('(tried 4 times)')).toBe(true);
    expect(text.match(/ECONNREFUSED/g)).toHaveLength(1);
  });

  it('waits as the server asks, within reason, else backs off exponentially', () => {
    expect(backoffDelay(1, new Error('x'))).toBe(2_000);
    expect(backoffDelay(3, new Error('x'))).toBe(8_000);
  });
});
