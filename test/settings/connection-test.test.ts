import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  endpointOf,
  failureFromError,
  failureFromHttp,
  redact,
  testConnection,
} from '../../electron/agent/connection-test.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A real HTTP server on 127.0.0.1 answering each request with `handler`. */
async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const context = (model = 'gpt-x') => ({
  provider: { kind: 'openai-compatible' as const, baseUrl: 'http://h/v1', model },
  url: 'http://h/v1/chat/completions',
  hasKey: true,
});

describe('the connection test', () => {
  it('sends one token to the completion path with the key, and says how long the answer took', async () => {
    const seen: { url?: string; auth?: string; body?: Record<string, unknown> } = {};
    const baseUrl = await serve((req, body, res) => {
      Object.assign(seen, { url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
      json(res, 200, { choices: [{ message: { content: 'p' } }] });
    });
    let clock = 1000;
    const result = await testConnection({ kind: 'openai-compatible', baseUrl, model: 'm1' }, 'sk-good', {
      now: () => (clock += 210),
    });
    expect(result).toEqual({ ok: true, model: 'm1', url: `${baseUrl}/chat/completions`, latencyMs: 210 });
    expect(seen.url).toBe('/v1/chat/completions');
    expect(seen.auth).toBe('Bearer sk-good');
    expect(seen.body).toMatchObject({ model: 'm1', max_tokens: 1, stream: false });
  });

  it('speaks Anthropic to an Anthropic provider (x-api-key, /messages, default URL)', async () => {
    let headers: IncomingMessage['headers'] = {};
    const baseUrl = await serve((req, _body, res) => {
      headers = req.headers;
      json(res, 200, { type: 'message', content: [{ type: 'text', text: 'p' }] });
    });
    const result = await testConnection({ kind: 'anthropic', baseUrl, model: 'claude-x' }, 'sk-ant-1234567');
    expect(result.ok).toBe(true);
    expect(headers['x-api-key']).toBe('sk-ant-1234567');
    expect(headers['anthropic-version']).toBeTruthy();
    expect(endpointOf({ kind: 'anthropic', model: 'c' })).toBe('https://api.anthropic.com/v1/messages');
  });

  it('retries with max_completion_tokens when the server names it (OpenAI reasoning models)', async () => {
    const bodies: Record<string, unknown>[] = [];
    const baseUrl = await serve((_req, body, res) => {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      bodies.push(parsed);
      if ('max_tokens' in parsed)
        json(res, 400, { error: { message: "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens'." } });
      else json(res, 200, { choices: [] });
    });
    expect((await testConnection({ kind: 'openai-compatible', baseUrl, model: 'o9' }, 'k')).ok).toBe(true);
    expect(bodies[1]).toMatchObject({ max_completion_tokens: 1 });
  });

  it('tells a refused key from an unknown model from a wrong URL, with the HTTP status', async () => {
    const baseUrl = await serve((req, body, res) => {
      const { model } = JSON.parse(body) as { model: string };
      if (req.headers.authorization !== 'Bearer sk-good')
        json(res, 401, { error: { message: 'Incorrect API key provided: sk-wrong-123456789' } });
      else if (model !== 'known') json(res, 404, { error: { message: `The model \`${model}\` does not exist` } });
      else json(res, 200, { choices: [] });
    });
    const key = await testConnection({ kind: 'openai-compatible', baseUrl, model: 'known' }, 'sk-wrong-123456789');
    expect(key).toMatchObject({ ok: false, reason: 'bad_key', status: 401 });
    expect(JSON.stringify(key)).not.toContain('sk-wrong-123456789');
    const model = await testConnection({ kind: 'openai-compatible', baseUrl, model: 'nope' }, 'sk-good');
    expect(model).toMatchObject({ ok: false, reason: 'unknown_model', status: 404 });
    expect(!model.ok && model.message).toContain('nope');
  });

  it('says a page that is not the API (an HTML 200, a bare 404) is the wrong URL', async () => {
    const baseUrl = await serve((req, _body, res) => {
      if (req.url?.startsWith('/v1/')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><p>welcome</p>');
      } else {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body>Not Found</body></html>');
      }
    });
    expect(await testConnection({ kind: 'openai-compatible', baseUrl, model: 'm' }, null)).toMatchObject({
      ok: false,
      reason: 'bad_url',
      status: 200,
    });
    const bare = await testConnection(
      { kind: 'openai-compatible', baseUrl: baseUrl.replace('/v1', '/x'), model: 'm' },
      null,
    );
    expect(bare).toMatchObject({ ok: false, reason: 'bad_url', status: 404 });
    expect(!bare.ok && bare.message).toMatch(/ending in \/v1/);
  });

  it('says nothing answered when the port is closed, and times out on a silent server', async () => {
    const baseUrl = await serve(() => {});
    servers.splice(0).forEach((server) => server.close());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const closed = await testConnection({ kind: 'openai-compatible', baseUrl, model: 'm' }, null);
    expect(closed).toMatchObject({ ok: false, reason: 'unreachable', status: null });
    expect(!closed.ok && closed.message).toMatch(/refused/);

    const silent = await serve(() => {
      // Never answers.
    });
    const late = await testConnection({ kind: 'openai-compatible', baseUrl: silent, model: 'm' }, null, {
      timeoutMs: 200,
    });
    expect(late).toMatchObject({ ok: false, reason: 'timeout' });
    expect(!late.ok && late.message).toMatch(/within 0 s|loading the model/);
  });
});

describe('the failure words', () => {
  it('maps HTTP answers to what the person must fix', () => {
    expect(failureFromHttp(401, '{"error":{"message":"invalid x-api-key"}}', context()).reason).toBe('bad_key');
    expect(failureFromHttp(403, '', { ...context(), hasKey: false }).message).toMatch(/none is set/);
    expect(
      failureFromHttp(404, '{"type":"error","error":{"type":"not_found_error","message":"model: c-9"}}', context('c-9'))
        .reason,
    ).toBe('unknown_model');
    expect(failureFromHttp(400, '{"error":"model \\"q\\" not found, try pulling it first"}', context('q')).reason).toBe(
      'unknown_model',
    );
    expect(failureFromHttp(404, 'Not Found', context()).reason).toBe('bad_url');
    expect(failureFromHttp(405, '', context()).reason).toBe('bad_url');
    expect(failureFromHttp(429, '{"error":{"message":"slow down"}}', context())).toEqual({
      reason: 'refused',
      message: 'The server is limiting requests now; try again later (HTTP 429: slow down)',
    });
    expect(failureFromHttp(503, '', context()).message).toBe('The server failed to answer (HTTP 503)');
  });

  it('keeps a server message inert and short', () => {
    const message = failureFromHttp(
      500,
      `{"error":{"message":"bad\\u001b[31m thing${'x'.repeat(500)}"}}`,
      context(),
    ).message;
    expect(message).not.toMatch(/\u001b/);
    expect(message.length).toBeLessThan(360);
  });

  it('maps network errors by their cause', () => {
    const cause = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: { code } });
    const at = { url: 'https://api.example.com/v1/chat/completions', timeoutMs: 10_000 };
    expect(failureFromError(cause('ENOTFOUND'), at)).toEqual({
      reason: 'unreachable',
      message: 'Nothing answered at https://api.example.com: no such host name',
    });
    expect(failureFromError(cause('DEPTH_ZERO_SELF_SIGNED_CERT'), at).message).toMatch(/TLS certificate/);
    expect(failureFromError({ name: 'TimeoutError' }, at)).toEqual({
      reason: 'timeout',
      message: 'No answer from https://api.example.com within 10 s',
    });
  });

  it('never repeats the key, whole or partly masked', () => {
    expect(redact('key sk-abc123456789 was refused', 'sk-abc123456789')).toBe('key [the key] was refused');
    expect(redact('Incorrect API key provided: sk-proj-****************abcd', 'other')).toBe(
      'Incorrect API key provided: [a key]',
    );
  });
});
