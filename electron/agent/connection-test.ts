import type { ConnectionFailure, ConnectionTestResult } from '../../shared/schemas/connection-test.js';
import type { ProviderKind } from '../../shared/schemas/settings.js';
import { redactKey } from './redact.js';

/**
 * Test connection: one completion of a single token. It is the one request every provider
 * answers only when the URL is its API, the key is accepted and the model exists (a model list
 * proves less: OpenRouter lists models for any key, Ollama for none), and it costs a few tokens.
 */
export const CONNECTION_TEST_TIMEOUT_MS = 10_000;
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';
/** A server's words are shown to the person: at most this many characters of them. */
const SERVER_MESSAGE_MAX = 300;

export interface ProviderToTest {
  kind: ProviderKind;
  baseUrl?: string | undefined;
  model: string;
}

export interface ConnectionTestOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => number;
}

type Failure = { reason: ConnectionFailure; message: string };

export async function testConnection(
  provider: ProviderToTest,
  apiKey: string | null,
  options: ConnectionTestOptions = {},
): Promise<ConnectionTestResult> {
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const url = endpointOf(provider);
  const started = now();
  const signal = AbortSignal.timeout(timeoutMs);
  const send = (limit: 'max_tokens' | 'max_completion_tokens') =>
    fetchImpl(url, {
      method: 'POST',
      headers: headersFor(provider.kind, apiKey),
      body: JSON.stringify({
        model: provider.model,
        [limit]: 1,
        messages: [{ role: 'user', content: 'ping' }],
        ...(provider.kind === 'openai-compatible' ? { stream: false } : {}),
      }),
      signal,
    });
  const failed = (failure: Failure, status: number | null = null): ConnectionTestResult => ({
    ok: false,
    ...failure,
    message: redact(failure.message, apiKey),
    url,
    status,
  });
  try {
    let response = await send('max_tokens');
    let text = await response.text();
    // OpenAI's reasoning models refuse max_tokens and name the field they take instead.
    if (provider.kind === 'openai-compatible' && response.status === 400 && /max_completion_tokens/.test(text)) {
      response = await send('max_completion_tokens');
      text = await response.text();
    }
    if (!response.ok)
      return failed(
        failureFromHttp(response.status, text, { provider, url, hasKey: apiKey !== null }),
        response.status,
      );
    if (!answersLikeProvider(provider.kind, text)) {
      return failed(
        {
          reason: 'bad_url',
          message: `${url} answered, but not as ${apiName(provider.kind)}: check that the base URL is the API root`,
        },
        response.status,
      );
    }
    return { ok: true, model: provider.model, url, latencyMs: Math.max(0, Math.round(now() - started)) };
  } catch (error) {
    return failed(failureFromError(error, { url, timeoutMs }));
  }
}

/** Where the test's request goes: the same path the turns use. */
export function endpointOf(provider: ProviderToTest): string {
  const base = (provider.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '');
  return provider.kind === 'anthropic' ? `${base}/messages` : `${base}/chat/completions`;
}

function headersFor(kind: ProviderKind, apiKey: string | null): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (kind === 'anthropic') {
    headers['anthropic-version'] = '2023-06-01';
    if (apiKey) headers['x-api-key'] = apiKey;
  } else if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  return headers;
}

function apiName(kind: ProviderKind): string {
  return kind === 'anthropic' ? "Anthropic's Messages API" : 'an OpenAI-compatible API';
}

function answersLikeProvider(kind: ProviderKind, text: string): boolean {
  const body = parseJson(text);
  if (!isRecord(body)) return false;
  return kind === 'anthropic' ? Array.isArray(body['content']) : Array.isArray(body['choices']);
}

/** An HTTP answer other than 2xx, in words: which of key, URL or model is wrong. */
export function failureFromHttp(
  status: number,
  body: string,
  context: { provider: ProviderToTest; url: string; hasKey: boolean },
): Failure {
  const said = serverMessage(body);
  const detail = `HTTP ${status}${said ? `: ${said}` : ''}`;
  const { provider, url } = context;
  if (status === 401 || status === 403) {
    return {
      reason: 'bad_key',
      message: context.hasKey
        ? `The server refused the API key (${detail})`
        : `The server wants an API key and none is set (${detail})`,
    };
  }
  if ((status === 404 || status === 400 || status === 422) && aboutModel(said, provider.model)) {
    return { reason: 'unknown_model', message: `The server does not know the model ${provider.model} (${detail})` };
  }
  if (status === 404 || status === 405) {
    const hint = provider.kind === 'openai-compatible' ? ', usually ending in /v1' : '';
    return {
      reason: 'bad_url',
      message: `${url} is not ${apiName(provider.kind)} (${detail}): check that the base URL is the API root${hint}`,
    };
  }
  if (status === 429)
    return { reason: 'refused', message: `The server is limiting requests now; try again later (${detail})` };
  if (status >= 500) return { reason: 'refused', message: `The server failed to answer (${detail})` };
  return { reason: 'refused', message: `The server refused the request (${detail})` };
}

/** A request that got no HTTP answer: nothing listening, no such host, TLS refused, or too slow. */
export function failureFromError(error: unknown, context: { url: string; timeoutMs: number }): Failure {
  const where = originOf(context.url);
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    const local = /^https?:\/\/(127\.|localhost|\[::1\])/.test(context.url);
    return {
      reason: 'timeout',
      message: `No answer from ${where} within ${Math.round(context.timeoutMs / 1000)} s${
        local ? ' (a local server may still be loading the model: try again)' : ''
      }`,
    };
  }
  const code = causeCode(error);
  const why =
    code === 'ECONNREFUSED'
      ? 'the connection was refused (is the server running?)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'no such host name'
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
          ? 'the connection was closed before an answer'
          : code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)
            ? `its TLS certificate was refused (${code})`
            : code
              ? code
              : clean((error as Error | null)?.message ?? String(error));
  return { reason: 'unreachable', message: `Nothing answered at ${where}: ${why}` };
}

function causeCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && isRecord(current); depth++) {
    if (typeof current['code'] === 'string') return current['code'];
    const nested = Array.isArray(current['errors']) ? current['errors'][0] : undefined;
    current = current['cause'] ?? nested;
  }
  return null;
}

function aboutModel(message: string, model: string): boolean {
  return /model/i.test(message) || (model !== '' && message.includes(model));
}

/** The server's own words: `error.message` (OpenAI, Anthropic), `error` (Ollama), `message`, or short plain text. */
function serverMessage(body: string): string {
  const json = parseJson(body);
  if (isRecord(json)) {
    const error = json['error'];
    const candidate = isRecord(error) ? error['message'] : typeof error === 'string' ? error : json['message'];
    return typeof candidate === 'string' ? clean(candidate) : '';
  }
  if (/<\s*(!doctype|html|body)/i.test(body)) return '';
  return clean(body);
}

/** Untrusted text for the page: no control characters, one line, bounded. */
function clean(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return flat.length > SERVER_MESSAGE_MAX ? `${flat.slice(0, SERVER_MESSAGE_MAX)}…` : flat;
}

/** The key never comes back to a page, even when a server quotes it (or most of it) in its error. */
export function redact(text: string, apiKey: string | null): string {
  return redactKey(text, apiKey);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
