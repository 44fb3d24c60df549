import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';
import type { ProviderSettings } from '../../shared/schemas/settings.js';
import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';

/** Builds the model from settings, always through a provider instance (never a bare model string). */
export function createLanguageModel(settings: ProviderSettings, apiKey: string | null): LanguageModel {
  if (settings.kind === 'anthropic') {
    const anthropic = createAnthropic({
      apiKey: apiKey ?? '',
      ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
    });
    return anthropic(settings.model);
  }
  const compatible = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: settings.baseUrl!,
    ...(apiKey ? { apiKey } : {}),
  });
  return compatible.chatModel(settings.model);
}

/** Is a local Ollama listening? Offered in the session view when no model is connected. */
export async function detectOllama(
  fetchImpl: typeof fetch = fetch,
  baseUrl = 'http://127.0.0.1:11434',
): Promise<{ baseUrl: string; models: string[] } | null> {
  try {
    const res = await fetchImpl(`${baseUrl}/api/tags`, { signal: AbortSignal.timeout(800) });
    if (!res.ok) return null;
    const body = (await res.json()) as { models?: { name?: unknown }[] };
    const models = (body.models ?? []).map((m) => m.name).filter((name): name is string => typeof name === 'string');
    return { baseUrl: `${baseUrl}/v1`, models };
  } catch {
    return null;
  }
}

/** Retries of a model call after a connection failure, a 429 or a 5xx (the turn then fails with one error). */
export const MODEL_RETRIES = 3;
/** The first retry waits this long, each next one twice as long (2 s, 4 s, 8 s), unless the server says when. */
export const RETRY_FIRST_DELAY_MS = 2_000;
/** A server's own retry-after is followed up to this long; past it, the backoff applies. */
export const RETRY_AFTER_MAX_MS = 60_000;

/** One retry about to happen: the how-many-th, of how many, and why the last attempt failed. */
export interface RetryNotice {
  retry: number;
  retries: number;
  reason: string;
}

export interface RetryOptions {
  retries?: number;
  signal: AbortSignal;
  onRetry: (notice: RetryNotice) => void;
  /** How long to wait before the n-th retry (1-based); the backoff with the server's retry-after by default. */
  delayMs?: (retry: number, error: unknown) => number;
  /**
   * The tokens each model call used, as the provider reported them, told as soon as its answer is
   * complete: before the tools of that step run, so a turn stopped during a tool still counts them.
   */
  onUsage?: (tokens: number) => void;
}

/**
 * The model, retrying its calls on failures worth retrying and telling about each retry as it
 * happens (the SDK's own retries run silently, so the person only saw "Working…" for 15 s).
 * The turn passes `maxRetries: 0` to the SDK so the two never stack.
 */
export function withRetries(model: LanguageModel, options: RetryOptions): LanguageModel {
  if (typeof model === 'string' || model.specificationVersion !== 'v3') return model;
  const retrying = async <T>(call: () => PromiseLike<T>): Promise<T> => {
    const retries = options.retries ?? MODEL_RETRIES;
    for (let retry = 1; ; retry++) {
      try {
        return await call();
      } catch (error) {
        if (options.signal.aborted || retry > retries || !isRetryable(error)) throw attemptsNoted(error, retry);
        options.onRetry({ retry, retries, reason: failureReason(error) });
        await sleep((options.delayMs ?? backoffDelay)(retry, error), options.signal);
      }
    }
  };
  const { onUsage } = options;
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) => {
      const result = await retrying(doGenerate);
      onUsage?.(callTokens(result.usage));
      return result;
    },
    wrapStream: async ({ doStream }) => {
      const result = await retrying(doStream);
      if (!onUsage) return result;
      const counted = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === 'finish') onUsage(callTokens(part.usage));
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(counted) };
    },
  };
  return wrapLanguageModel({ model, middleware });
}

/** A model call's tokens: its input and output as reported (0 for what it did not report). */
function callTokens(usage: LanguageModelV3Usage): number {
  return (usage.inputTokens.total ?? 0) + (usage.outputTokens.total ?? 0);
}

function isRetryable(error: unknown): boolean {
  return APICallError.isInstance(error) && error.isRetryable;
}

/** The wait before a retry: the server's retry-after when it gave a sensible one, else exponential backoff. */
export function backoffDelay(retry: number, error: unknown): number {
  const exponential = RETRY_FIRST_DELAY_MS * 2 ** (retry - 1);
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  const afterMs = Number.parseFloat(headers?.['retry-after-ms'] ?? '');
  const afterSeconds = Number.parseFloat(headers?.['retry-after'] ?? '');
  const told = Number.isFinite(afterMs) ? afterMs : Number.isFinite(afterSeconds) ? afterSeconds * 1000 : NaN;
  return told >= 0 && told <= RETRY_AFTER_MAX_MS ? told : exponential;
}

/** Why an attempt failed, in the person's words: the server is silent, busy, or answered with an error. */
export function failureReason(error: unknown): string {
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) return 'Model server not answering';
    if (error.statusCode === 429) return 'Model server busy (HTTP 429)';
    return `Model server answered HTTP ${error.statusCode}`;
  }
  return 'Model request failed';
}

/** The error that ends the turn, carrying how many attempts it took (for one clear sentence). */
function attemptsNoted(error: unknown, attempts: number): unknown {
  if (attempts > 1 && error instanceof Error) Object.assign(error, { attempts });
  return error;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
