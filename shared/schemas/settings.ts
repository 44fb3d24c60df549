import { z } from 'zod';
import { tunableParts } from '../domain/tunables.js';
import { SandboxFieldsSchema, SandboxSettingsSchema } from './sandbox.js';

/** `settings.json` in the data folder. Every field is optional; absent ones keep their defaults. */
const BackgroundFieldsSchema = z.object({
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
  /** Background sub-agents per session at once. */
  maxAgents: z.number().int().min(1).max(32),
  /** Model calls (steps) one sub-agent may make. */
  agentMaxTurns: z.number().int().min(1).max(500),
  /** Tokens one sub-agent may use. */
  agentMaxTokens: z.number().int().min(1000).max(100_000_000),
  /**
   * The nice value tasks' processes run at: 0 (the default) as Drover itself, up to 19, the lowest, so a
   * busy task leaves the processor to the app and other programs first (Windows: 10 to 18 below normal, 19 idle).
   */
  taskNice: z.number().int().min(0).max(19),
  /**
   * Linux: busy tasks share one program's weight on the processor between them (on by default), so
   * many of them slow the app and other programs no more than one would. Off, each weighs as a program.
   */
  shareTaskCpu: z.boolean(),
});
export const BackgroundSettingsSchema = BackgroundFieldsSchema.partial().strict();
export type BackgroundKey = keyof typeof BackgroundFieldsSchema.shape;
export const BACKGROUND_KEYS = Object.keys(BackgroundFieldsSchema.shape) as BackgroundKey[];

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

const AgentFieldsSchema = z.object({
  /** Turns a session may be woken for by finishing tasks, per run of Drover. */
  maxWakesPerSession: z.number().int().min(0).max(10_000),
});
export const AgentSettingsSchema = AgentFieldsSchema.partial().strict();
export type AgentKey = keyof typeof AgentFieldsSchema.shape;
export const AGENT_KEYS = Object.keys(AgentFieldsSchema.shape) as AgentKey[];

/**
 * The model's sleep tool. A request shorter than `minSeconds` is raised to it; one longer than
 * `maxSeconds` sleeps that long and tells the model what remains, so a long wait is a few calls
 * (-1: no cap per call). Read at every call.
 */
export const SLEEP_DEFAULTS = { minSeconds: 5, maxSeconds: 600 } as const;
export const SLEEP_NO_CAP = -1;
const SleepFieldsSchema = z.object({
  minSeconds: z.number().int().min(0).max(3600),
  maxSeconds: z
    .number()
    .int()
    .min(SLEEP_NO_CAP)
    .max(86_400)
    .refine((seconds) => seconds !== 0, 'must be -1 (no cap) or at least 1'),
});
export const SleepSettingsSchema = SleepFieldsSchema.partial()
  .strict()
  .refine(
    ({ minSeconds, maxSeconds }) =>
      minSeconds === undefined || maxSeconds === undefined || maxSeconds === SLEEP_NO_CAP || minSeconds <= maxSeconds,
    { message: 'must not be above maxSeconds', path: ['minSeconds'] },
  );
export type SleepSettings = z.output<typeof SleepSettingsSchema>;
export type SleepKey = keyof typeof SleepFieldsSchema.shape;
export const SLEEP_KEYS = Object.keys(SleepFieldsSchema.shape) as SleepKey[];

/**
 * The scheduler (issue #16). `resumeWithoutAsking`: after a restart, schedules and loops run again
 * by themselves instead of waiting for the person's word (the resume guard).
 */
export const SCHEDULER_DEFAULTS = { resumeWithoutAsking: false } as const;
const SchedulerFieldsSchema = z.object({ resumeWithoutAsking: z.boolean() });
export const SchedulerSettingsSchema = SchedulerFieldsSchema.partial().strict();
export type SchedulerSettings = z.output<typeof SchedulerSettingsSchema>;

/**
 * The budget for unattended turns (issue #16): per session, the turns Drover starts on its own
 * (wake-ups, loop passes, scheduled prompts) and the tokens they use, as the provider reports them.
 */
export const BUDGET_DEFAULTS = { turns: 50, tokens: 2_000_000 } as const;
const BudgetFieldsSchema = z.object({
  turns: z.number().int().min(1).max(100_000),
  tokens: z.number().int().min(1000).max(1_000_000_000),
});
export const BudgetSettingsSchema = BudgetFieldsSchema.partial().strict();
export type BudgetSettings = z.output<typeof BudgetSettingsSchema>;

/** The sections of settings.json whose figures the Settings page edits one by one. */
const TUNABLE_SECTIONS = {
  background: BackgroundFieldsSchema,
  agent: AgentFieldsSchema,
  sleep: SleepFieldsSchema,
  scheduler: SchedulerFieldsSchema,
  budget: BudgetFieldsSchema,
} as const;
export type TunableSection = keyof typeof TUNABLE_SECTIONS;
/** `section.key` for every figure the page edits: `background.maxConcurrent`, `budget.turns`… */
export type TunableId = {
  [S in TunableSection]: `${S}.${keyof (typeof TUNABLE_SECTIONS)[S]['shape'] & string}`;
}[TunableSection];

/** The schema of one tunable field as settings.json takes it (bounds included), for checks at the page. */
export function tunableSchema(id: TunableId): z.ZodType {
  const [section, key] = tunableParts(id);
  return (TUNABLE_SECTIONS[section].shape as Record<string, z.ZodType>)[key]!;
}

export { tunableParts };

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

/** What the desktop app does when its last window closes, and whether it updates itself. */
export const WHEN_CLOSED = ['tray', 'quit'] as const;
export const DesktopSettingsSchema = z
  .object({
    /** `tray`: while work is live, closing the window keeps Drover running in the tray; `quit`: closing stops everything. */
    whenClosed: z.enum(WHEN_CLOSED),
    /** Check GitHub releases for a new version and install it on quit. Off until the person turns it on. */
    autoUpdate: z.boolean(),
  })
  .partial()
  .strict();
export type DesktopSettings = z.infer<typeof DesktopSettingsSchema>;

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
    /** Seconds a WebSocket client may leave what is sent to it untaken before it is cut off. */
    stalledClientSeconds: z.number().int().min(5).max(3600),
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
    sleep: SleepSettingsSchema.optional(),
    scheduler: SchedulerSettingsSchema.optional(),
    budget: BudgetSettingsSchema.optional(),
    desktop: DesktopSettingsSchema.optional(),
    sandbox: SandboxSettingsSchema.optional(),
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;

/** Where a value in force comes from: the built-in default, settings.json, or an override Drover was started with. */
export const SettingSourceSchema = z.enum(['default', 'settings', 'override']);
export type SettingSource = z.infer<typeof SettingSourceSchema>;
const InForceSchema = z.object({
  value: z.union([z.number(), z.boolean()]),
  default: z.union([z.number(), z.boolean()]),
  source: SettingSourceSchema,
});
export type InForce = z.infer<typeof InForceSchema>;
const inForceOf = <K extends string>(keys: readonly K[]) =>
  z.object(Object.fromEntries(keys.map((key) => [key, InForceSchema])) as Record<K, typeof InForceSchema>);

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
  desktop: z.object({ whenClosed: z.enum(WHEN_CLOSED), autoUpdate: z.boolean() }),
  tasks: z.object({ passEnvironment: z.array(z.string()) }),
  /** The sandbox's policy in force: the file's values over the defaults. */
  sandbox: SandboxFieldsSchema,
  sleep: SleepFieldsSchema.partial(),
  scheduler: SchedulerSettingsSchema,
  budget: BudgetSettingsSchema,
  /** Each tunable's value in force, its default and where it comes from (the sections above hold only the file's). */
  inForce: z.object({
    background: inForceOf(BACKGROUND_KEYS),
    agent: inForceOf(AGENT_KEYS),
    sleep: inForceOf(SLEEP_KEYS),
    scheduler: inForceOf(['resumeWithoutAsking'] as const),
    budget: inForceOf(['turns', 'tokens'] as const),
  }),
  /** Why settings.json was not used at start (the defaults apply; the next save keeps that file aside), or null. */
  fileProblem: z.string().nullable(),
});
export type PublicSettings = z.infer<typeof PublicSettingsSchema>;

/** A change to some of a section's fields; null takes a field out of settings.json, back to its default. */
function resettable<S extends z.ZodRawShape>(fields: z.ZodObject<S>) {
  const shape = Object.fromEntries(
    Object.entries(fields.shape).map(([key, field]) => [key, (field as z.ZodType).nullable().optional()]),
  );
  return z.strictObject(shape as unknown as { [K in keyof S]: z.ZodOptional<z.ZodNullable<S[K]>> });
}

/** The model connection as a page sends it: the fields, and optionally a new key (null: no key). */
export const ProviderChangeSchema = ProviderFieldsSchema.extend({
  // A key is one printable word: a space, newline or control character in it would land in an HTTP
  // header, whose error messages quote the header (and so the key) back.
  apiKey: z
    .string()
    .min(1)
    .max(4096)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII with no spaces or control characters (as API keys are)')
    .nullable()
    .optional(),
}).refine(hasBaseUrlIfNeeded, needsBaseUrl);
export type ProviderChange = z.infer<typeof ProviderChangeSchema>;

/** A change to the settings: the provider with an optional new key (null removes the stored key). */
export const SettingsUpdateSchema = z
  .object({
    // One strict object (not an intersection, which let unknown keys through): a key it does not name is refused.
    provider: ProviderChangeSchema.nullable().optional(),
    background: resettable(BackgroundFieldsSchema).optional(),
    agent: resettable(AgentFieldsSchema).optional(),
    commandAllowlist: CommandAllowlistSchema.optional(),
    notifications: NotificationSettingsSchema.optional(),
    tasks: TaskSettingsSchema.optional(),
    sleep: resettable(SleepFieldsSchema).optional(),
    scheduler: resettable(SchedulerFieldsSchema).optional(),
    budget: resettable(BudgetFieldsSchema).optional(),
    desktop: DesktopSettingsSchema.optional(),
    sandbox: resettable(SandboxFieldsSchema).optional(),
  })
  .strict();
export type SettingsUpdate = z.infer<typeof SettingsUpdateSchema>;
