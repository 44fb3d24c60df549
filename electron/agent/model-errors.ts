import { APICallError } from 'ai';
import { redactKey } from './redact.js';

/** One sentence: what went wrong and how often it was tried, each part said once. */
export function describeModelError(error: unknown): string {
  // The note goes into the transcript (and so to the model): never with a key a library quoted.
  return redactKey(describeWithoutRedacting(error), null);
}

function describeWithoutRedacting(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const attempts = (error as { attempts?: unknown }).attempts;
  const tried = typeof attempts === 'number' ? ` (tried ${attempts} times)` : '';
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) {
      const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return `the model server at ${error.url} is not answering${cause}${tried}`;
    }
    return `HTTP ${error.statusCode} from the model server: ${error.message}${tried}`;
  }
  return `${error.message}${tried}`;
}
