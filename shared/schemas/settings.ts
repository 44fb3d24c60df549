import { z } from 'zod';

/** `settings.json` in the data folder. Every field is optional; absent ones keep their defaults. */
export const BackgroundSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** Per session. */
    maxConcurrent: z.number().int().min(1).max(64),
    /** Across every session. */
    maxConcurrentTotal: z.number().int().min(1).max(256),
    defaultTimeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(24 * 3600),
    maxTimeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600),
    outputBufferBytes: z
      .number()
      .int()
      .min(4096)
      .max(64 * 1024 * 1024),
    stopGraceSeconds: z.number().min(0).max(300),
    foregroundWaitSeconds: z.number().min(1).max(3600),
  })
  .partial()
  .strict();

export const ProviderKindSchema = z.enum(['anthropic', 'openai-compatible']);
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

/** The model connection. The API key is never part of this shape: it is kept apart and never sent to a page. */
const ProviderFieldsSchema = z.strictObject({
  kind: ProviderKindSchema,
  /** Anthropic: default https://api.anthropic.com/v1. OpenAI-compatible: required (OpenAI, OpenRouter, Ollama, LM Studio, vLLM…). */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  model: z.string().trim().min(1, 'must name a model').max(200),
  /** Turn off for local servers whose streamed tool calls are broken. */
  streaming: z.boolean().default(true),
});
const hasBaseUrlIfNeeded = (p: { kind: ProviderKind; baseUrl?: string | undefined }) =>
  p.kind === 'anthropic' || p.baseUrl !== undefined;
const needsBaseUrl = { message: 'an OpenAI-compatible provider needs a baseUrl', path: ['baseUrl'] };
export const ProviderSettingsSchema = ProviderFieldsSchema.refine(hasBaseUrlIfNeeded, needsBaseUrl);
export type ProviderSettings = z.output<typeof ProviderSettingsSchema>;

export const AgentSettingsSchema = z
  .object({
    /** Turns a session may be woken for by finishing tasks, per run of Drover. */
    maxWakesPerSession: z.number().int().min(0).max(10_000),
  })
  .partial()
  .strict();

/** The operator's own prefixes: a command starting with one at a word boundary, adding no shell machinery, runs without asking. */
/** Limits of the lists in settings; the Settings page checks entries against the same numbers. */
export const ALLOWLIST_ENTRY_MAX = 1000;
export const ALLOWLIST_ENTRIES_MAX = 500;
export const VARIABLE_NAME_MAX = 128;
export const PASS_ENVIRONMENT_MAX = 200;

export const CommandAllowlistSchema = z
  .array(z.string().trim().min(1).max(ALLOWLIST_ENTRY_MAX))
  .max(ALLOWLIST_ENTRIES_MAX);

export const NotificationSettingsSchema = z
  .object({
    /** A system notification when a task ends while the window is not focused. */
    enabled: z.boolean(),
  })
  .partial()
  .strict();

/** An environment variable's name, as a shell would accept it. */
export const VARIABLE_NAME = new RegExp(`^[A-Za-z_][A-Za-z0-9_]{0,${VARIABLE_NAME_MAX - 1}}$`);
export const VariableNameSchema = z.string().regex(VARIABLE_NAME, 'is not an environment variable name');

export const TaskSettingsSchema = z
  .object({
    /** Variables Drover keeps from tasks by default that the person passes through on purpose. */
    passEnvironment: z.array(VariableNameSchema).max(PASS_ENVIRONMENT_MAX),
  })
  .partial()
  .strict();

/** The headless host. Read at start. */
export const HostSettingsSchema = z
  .object({
    /** Requests one connection may have running at once; more wait in its queue (issue #12). */
    maxInFlightPerConnection: z.number().int().min(1).max(1024),
  })
  .partial()
  .strict();

export const SettingsSchema = z
  .object({
    commandAllowlist: CommandAllowlistSchema.optional(),
    notifications: NotificationSettingsSchema.optional(),
    background: BackgroundSettingsSchema.optional(),
    provider: ProviderSettingsSchema.optional(),
    agent: AgentSettingsSchema.optional(),
    tasks: TaskSettingsSchema.optional(),
    host: HostSettingsSchema.optional(),
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;

/** What a page may see of the settings: whether a key is set and where from, never the key. */
export const PublicSettingsSchema = z.object({
  provider: z
    .object({
      kind: ProviderKindSchema,
      baseUrl: z.string().nullable(),
      model: z.string(),
      streaming: z.boolean(),
      hasApiKey: z.boolean(),
      keySource: z.enum(['settings', 'environment']).nullable(),
    })
    .nullable(),
  background: BackgroundSettingsSchema,
  agent: AgentSettingsSchema,
  commandAllowlist: z.array(z.string()),
  notifications: z.object({ enabled: z.boolean() }),
  tasks: z.object({ passEnvironment: z.array(z.string()) }),
});
export type PublicSettings = z.infer<typeof PublicSettingsSchema>;

/** A change to the settings: the provider with an optional new key (null removes the stored key). */
export const SettingsUpdateSchema = z
  .object({
    // One strict object (not an intersection, which let unknown keys through): a key it does not name is refused.
    provider: ProviderFieldsSchema.extend({ apiKey: z.string().min(1).max(4096).nullable().optional() })
      .refine(hasBaseUrlIfNeeded, needsBaseUrl)
      .nullable()
      .optional(),
    background: BackgroundSettingsSchema.optional(),
    agent: AgentSettingsSchema.optional(),
    commandAllowlist: CommandAllowlistSchema.optional(),
    notifications: NotificationSettingsSchema.optional(),
    tasks: TaskSettingsSchema.optional(),
  })
  .strict();
export type SettingsUpdate = z.infer<typeof SettingsUpdateSchema>;
