import { z } from 'zod';
import { ProviderChangeSchema } from './settings.js';

/**
 * Test connection: the provider as saved (no `provider`), or as typed in the form before saving.
 * A typed provider without `apiKey` uses the key Drover holds (stored, else the environment);
 * `apiKey: null` tests with no key at all.
 */
export const ConnectionTestRequestSchema = z.strictObject({ provider: ProviderChangeSchema.optional() });
export type ConnectionTestRequest = z.infer<typeof ConnectionTestRequestSchema>;

/** Why a test failed, each a different thing for the person to fix. */
export const ConnectionFailureSchema = z.enum([
  /** No model is configured (and none was typed). */
  'not_configured',
  /** Nothing answered at the URL: refused, no such host, TLS failure. */
  'unreachable',
  /** Something answered, but not the provider's API at that path. */
  'bad_url',
  /** The server refused the key (or wants one and none is set). */
  'bad_key',
  /** The server does not know the model. */
  'unknown_model',
  /** No answer within the test's time limit. */
  'timeout',
  /** The server answered with another error (rate limit, overload, a refused request). */
  'refused',
]);
export type ConnectionFailure = z.infer<typeof ConnectionFailureSchema>;

export const ConnectionTestResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    model: z.string(),
    /** The URL the request went to (never with a key). */
    url: z.string(),
    /** From sending the request to reading the whole answer. */
    latencyMs: z.number().int().min(0),
  }),
  z.object({
    ok: z.literal(false),
    reason: ConnectionFailureSchema,
    /** What went wrong, in words for the person; never holds the key. */
    message: z.string(),
    url: z.string().nullable(),
    /** The HTTP status when the server answered. */
    status: z.number().int().nullable(),
  }),
]);
export type ConnectionTestResult = z.infer<typeof ConnectionTestResultSchema>;
