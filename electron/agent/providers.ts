import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ProviderSettings } from '../../shared/schemas/settings.js';

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
