import { readFileSync, renameSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { DroverError, issuePath } from '../../shared/ipc/errors.js';
import {
  AGENT_KEYS,
  BACKGROUND_KEYS,
  SCHEDULER_DEFAULTS,
  BUDGET_DEFAULTS,
  SLEEP_DEFAULTS,
  SettingsSchema,
  type BackgroundKey,
  type InForce,
  type ProviderChange,
  type ProviderSettings,
  type PublicSettings,
  type Settings,
  type SettingsUpdate,
} from '../../shared/schemas/settings.js';
import type { ConnectionTestResult } from '../../shared/schemas/connection-test.js';
import { sandboxPolicyOf } from '../../shared/schemas/sandbox.js';
import type { SecretStore } from './secrets.js';
import { DEFAULT_POLICY, type PoolPolicy } from '../pool/policy.js';
import { testConnection, type ConnectionTestOptions, type ProviderToTest } from '../agent/connection-test.js';
import { createLanguageModel } from '../agent/providers.js';
import { budgetLimits, checkSleepBounds } from './settings-rules.js';

export { budgetLimits };
import type { LanguageModel } from 'ai';
import { writePrivateFileAtomic } from '../store/private-files.js';
import { fullMessage, isNoRoom } from '../store/no-room.js';

/** Errors of the file system that mean there is no room left for the file. */

export const SETTINGS_FILE = 'settings.json';

export interface LoadedSettings {
  settings: Settings;
  /** Why the file was not used, naming the field; the defaults apply and the file is left as it is. */
  problem: string | null;
}

export function loadSettings(dataDir: string): LoadedSettings {
  const file = join(dataDir, SETTINGS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { settings: {}, problem: null };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { settings: {}, problem: `${file} is not valid JSON (${(error as Error).message}); using the defaults` };
  }
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      settings: {},
      problem: `${file}: ${issuePath(issue.path) || 'the file'}: ${issue.message}; using the defaults`,
    };
  }
  return { settings: parsed.data, problem: null };
}

/** Each `background` field of settings.json, the pool's figure it sets, and the unit the file counts in. */
const POLICY_FIELDS: { [K in BackgroundKey]: { field: keyof PoolPolicy; scale: number } } = {
  enabled: { field: 'enabled', scale: 1 },
  maxConcurrent: { field: 'maxConcurrent', scale: 1 },
  maxConcurrentTotal: { field: 'maxConcurrentTotal', scale: 1 },
  defaultTimeoutSeconds: { field: 'defaultTimeoutSeconds', scale: 1 },
  maxTimeoutSeconds: { field: 'maxTimeoutSeconds', scale: 1 },
  outputBufferBytes: { field: 'outputWindowBytes', scale: 1 },
  stopGraceSeconds: { field: 'stopGraceMs', scale: 1000 },
  foregroundWaitSeconds: { field: 'foregroundWaitMs', scale: 1000 },
  maxAgents: { field: 'maxAgents', scale: 1 },
  agentMaxTurns: { field: 'agentMaxSteps', scale: 1 },
  agentMaxTokens: { field: 'agentMaxTokens', scale: 1 },
  taskNice: { field: 'taskNice', scale: 1 },
  shareTaskCpu: { field: 'shareTaskCpu', scale: 1 },
};

function toPolicy(key: BackgroundKey, value: number | boolean): number | boolean {
  return typeof value === 'number' ? value * POLICY_FIELDS[key].scale : value;
}

function fromPolicy(key: BackgroundKey, value: number | boolean): number | boolean {
  return typeof value === 'number' ? value / POLICY_FIELDS[key].scale : value;
}

export function poolPolicyFrom(settings: Settings): Partial<PoolPolicy> {
  const policy: Record<string, number | boolean> = {};
  for (const key of BACKGROUND_KEYS) {
    const value = settings.background?.[key];
    if (value !== undefined) policy[POLICY_FIELDS[key].field] = toPolicy(key, value);
  }
  return policy as Partial<PoolPolicy>;
}

/** The pool's whole policy: the defaults, then settings.json, then what Drover was started with (tests). */
export function policyInForce(settings: Settings, overrides: Partial<PoolPolicy> = {}): PoolPolicy {
  return { ...DEFAULT_POLICY, ...poolPolicyFrom(settings), ...overrides };
}

/** Each tunable's value in force, its default, and where the value comes from; in the file's units. */
export function tunablesInForce(settings: Settings, overrides: Partial<PoolPolicy> = {}): PublicSettings['inForce'] {
  const background = {} as Record<BackgroundKey, InForce>;
  for (const key of BACKGROUND_KEYS) {
    const { field } = POLICY_FIELDS[key];
    const fallback = fromPolicy(key, DEFAULT_POLICY[field]);
    const overridden = overrides[field];
    const stored = settings.background?.[key];
    background[key] =
      overridden !== undefined
        ? { value: fromPolicy(key, overridden), default: fallback, source: 'override' }
        : stored !== undefined
          ? { value: stored, default: fallback, source: 'settings' }
          : { value: fallback, default: fallback, source: 'default' };
  }
  const wakes = settings.agent?.maxWakesPerSession;
  const agent = {
    maxWakesPerSession:
      wakes === undefined
        ? { value: BUDGET_DEFAULTS.turns, default: BUDGET_DEFAULTS.turns, source: 'default' as const }
        : { value: wakes, default: BUDGET_DEFAULTS.turns, source: 'settings' as const },
  } satisfies Record<(typeof AGENT_KEYS)[number], InForce>;
  const limits = budgetLimits(settings);
  return {
    background,
    agent,
    sleep: {
      minSeconds: fileOrDefault(settings.sleep?.minSeconds, SLEEP_DEFAULTS.minSeconds),
      maxSeconds: fileOrDefault(settings.sleep?.maxSeconds, SLEEP_DEFAULTS.maxSeconds),
    },
    scheduler: {
      resumeWithoutAsking: fileOrDefault(
        settings.scheduler?.resumeWithoutAsking,
        SCHEDULER_DEFAULTS.resumeWithoutAsking,
      ),
    },
    budget: {
      turns:
        limits.turns === BUDGET_DEFAULTS.turns && settings.budget?.turns === undefined && wakes === undefined
          ? fileOrDefault(undefined, BUDGET_DEFAULTS.turns)
          : { value: limits.turns, default: BUDGET_DEFAULTS.turns, source: 'settings' },
      tokens: fileOrDefault(settings.budget?.tokens, BUDGET_DEFAULTS.tokens),
    },
  };
}

function fileOrDefault<T extends number | boolean>(stored: T | undefined, fallback: T): InForce {
  return stored === undefined
    ? { value: fallback, default: fallback, source: 'default' }
    : { value: stored, default: fallback, source: 'settings' };
}

/** A section with some fields changed; null takes a field out (back to its default), and an empty section goes. */
function merged<T extends object>(current: T | undefined, change: { [K in keyof T]?: T[K] | null }): T | undefined {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return Object.keys(next).length === 0 ? undefined : (next as T);
}

/** Environment variables the host reads a key from when none is stored. */
export const KEY_VARIABLES: Record<ProviderSettings['kind'], string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
};

/** The settings of this app: read at start, changed through the contract, written back atomically. */
export class SettingsService {
  readonly #dataDir: string;
  readonly #secrets: SecretStore;
  readonly #env: NodeJS.ProcessEnv;
  readonly #overrides: Partial<PoolPolicy>;
  readonly #listeners = new Set<(settings: Settings) => void>();
  #settings: Settings;
  #unreadable: boolean;
  /** Said on the page: why the file was not used, or where the unusable one was kept. */
  #fileProblem: string | null;

  constructor(
    dataDir: string,
    secrets: SecretStore,
    loaded: LoadedSettings,
    env: NodeJS.ProcessEnv = process.env,
    /** Figures Drover was started with that win over the file (tests); shown as such. */
    overrides: Partial<PoolPolicy> = {},
  ) {
    this.#dataDir = dataDir;
    this.#secrets = secrets;
    this.#env = env;
    this.#overrides = overrides;
    this.#settings = loaded.settings;
    this.#unreadable = loaded.problem !== null;
    this.#fileProblem = loaded.problem;
  }

  get current(): Settings {
    return this.#settings;
  }

  /** The pool's policy from these settings; read again after every change. */
  poolPolicy(): PoolPolicy {
    return policyInForce(this.#settings, this.#overrides);
  }

  /** Runs `listener` after each saved change, with the settings now in force. Returns an unsubscribe. */
  onChange(listener: (settings: Settings) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tries the saved provider, or one typed in the form before saving; never says the key. */
  async testConnection(
    typed: ProviderChange | undefined,
    options?: ConnectionTestOptions,
  ): Promise<ConnectionTestResult> {
    const target = this.#connectionToTest(typed);
    if (!target) {
      return {
        ok: false,
        reason: 'not_configured',
        message: 'No model is configured: choose a provider and a model first.',
        url: null,
        status: null,
      };
    }
    return testConnection(target.provider, target.apiKey, options);
  }

  #connectionToTest(typed: ProviderChange | undefined): { provider: ProviderToTest; apiKey: string | null } | null {
    if (!typed) {
      const saved = this.provider();
      return saved && { provider: saved.settings, apiKey: saved.apiKey };
    }
    const { apiKey, ...provider } = typed;
    return { provider, apiKey: apiKey === undefined ? this.#keyFor(provider.kind) : apiKey };
  }

  #keyFor(kind: ProviderSettings['kind']): string | null {
    // A variable set from a file often ends in a newline, which no key holds (and a header refuses).
    return this.#secrets.get() ?? (this.#env[KEY_VARIABLES[kind]]?.trim() || null);
  }

  /** The provider with its key (stored first, else from the environment), or null when none is set. */
  provider(): { settings: ProviderSettings; apiKey: string | null } | null {
    const provider = this.#settings.provider;
    if (!provider) return null;
    return { settings: provider, apiKey: this.#keyFor(provider.kind) };
  }

  /**
   * The connected model for a turn, or null when none is configured; an agent definition may name
   * another model of the same provider.
   */
  languageModel(modelName?: string): { model: LanguageModel; streaming: boolean } | null {
    const provider = this.provider();
    if (!provider) return null;
    const chosen = modelName ? { ...provider.settings, model: modelName } : provider.settings;
    return { model: createLanguageModel(chosen, provider.apiKey), streaming: chosen.streaming };
  }

  publicView(): PublicSettings {
    const provider = this.#settings.provider;
    const stored = this.#secrets.get() !== null;
    const fromEnv = provider ? Boolean(this.#env[KEY_VARIABLES[provider.kind]]) : false;
    return {
      provider: provider
        ? {
            kind: provider.kind,
            baseUrl: provider.baseUrl ?? null,
            model: provider.model,
            streaming: provider.streaming,
            hasApiKey: stored || fromEnv,
            keySource: stored ? 'settings' : fromEnv ? 'environment' : null,
          }
        : null,
      background: this.#settings.background ?? {},
      agent: this.#settings.agent ?? {},
      commandAllowlist: this.#settings.commandAllowlist ?? [],
      notifications: { enabled: this.#settings.notifications?.enabled ?? true },
      desktop: {
        whenClosed: this.#settings.desktop?.whenClosed ?? 'tray',
        autoUpdate: this.#settings.desktop?.autoUpdate ?? false,
      },
      tasks: { passEnvironment: this.#settings.tasks?.passEnvironment ?? [] },
      sandbox: sandboxPolicyOf(this.#settings.sandbox),
      sleep: this.#settings.sleep ?? {},
      scheduler: this.#settings.scheduler ?? {},
      budget: this.#settings.budget ?? {},
      inForce: tunablesInForce(this.#settings, this.#overrides),
      fileProblem: this.#fileProblem,
    };
  }

  update(change: SettingsUpdate): PublicSettings {
    const next: Settings = { ...this.#fileNow() };
    let newKey: { value: string | null; previous: string | null } | null = null;
    if (change.provider === null) delete next.provider;
    else if (change.provider) {
      const { apiKey, ...provider } = change.provider;
      next.provider = provider;
      if (apiKey !== undefined) {
        newKey = { value: apiKey, previous: this.#secrets.get() };
        try {
          this.#secrets.set(apiKey);
        } catch (error) {
          if (isNoRoom(error, this.#dataDir))
            throw new DroverError('disk_full', `${fullMessage(this.#dataDir)} The settings were not changed.`, {
              path: 'provider.apiKey',
            });
          throw new DroverError('unavailable', `The API key was not saved: ${(error as Error).message}`, {
            path: 'provider.apiKey',
          });
        }
      }
    }
    if (change.background) next.background = merged(next.background, change.background);
    if (change.agent) next.agent = merged(next.agent, change.agent);
    if (change.sleep) next.sleep = merged(next.sleep, change.sleep);
    if (change.scheduler) next.scheduler = merged(next.scheduler, change.scheduler);
    if (change.budget) next.budget = merged(next.budget, change.budget);
    // The old wake-up cap is read as budget.turns while that is unset: setting or resetting the
    // budget's turns takes it out, so the figure shown is the one in force and Reset means the default.
    if (change.budget?.turns !== undefined && next.agent?.maxWakesPerSession !== undefined)
      next.agent = merged(next.agent, { maxWakesPerSession: null });
    checkSleepBounds(next, change);
    if (change.commandAllowlist) next.commandAllowlist = change.commandAllowlist;
    if (change.notifications) next.notifications = { ...next.notifications, ...change.notifications };
    if (change.tasks) next.tasks = { ...next.tasks, ...change.tasks };
    if (change.sandbox) next.sandbox = merged(next.sandbox, change.sandbox);
    if (change.desktop) next.desktop = { ...next.desktop, ...change.desktop };
    try {
      const parsed = SettingsSchema.safeParse(next);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new DroverError('invalid_input', `${issuePath(issue.path)}: ${issue.message}`, {
          path: issuePath(issue.path),
        });
      }
      this.#write(parsed.data);
    } catch (error) {
      // All or nothing: a key saved for settings that could not be saved is put back.
      if (newKey) {
        try {
          this.#secrets.set(newKey.previous);
        } catch {
          // The store refuses now too; the error below still says nothing was changed but the key.
        }
      }
      throw error;
    }
    this.#settings = SettingsSchema.parse(next);
    for (const listener of [...this.#listeners]) listener(this.#settings);
    return this.publicView();
  }

  /**
   * What the file holds now, so a save keeps what was edited by hand since the start. A file
   * that no longer parses is kept aside at the write (as one unreadable at start is), and the
   * settings in force are the base.
   */
  #fileNow(): Settings {
    const file = join(this.#dataDir, SETTINGS_FILE);
    if (this.#unreadable || !existsSync(file)) return this.#settings;
    const loaded = loadSettings(this.#dataDir);
    if (loaded.problem === null) return loaded.settings;
    this.#unreadable = true;
    return this.#settings;
  }

  #write(settings: Settings): void {
    const file = join(this.#dataDir, SETTINGS_FILE);
    // A file we could not read is kept aside, never silently replaced.
    if (this.#unreadable && existsSync(file)) {
      const aside = `${file}.unreadable-${Date.now()}`;
      renameSync(file, aside);
      this.#fileProblem = `settings.json could not be used, so it was kept as ${aside} and a new one was written`;
    }
    this.#unreadable = false;
    try {
      // Private, flushed, then renamed over the old file: a save that fails leaves the old one whole.
      writePrivateFileAtomic(file, `${JSON.stringify(settings, null, 2)}\n`);
    } catch (error) {
      if (isNoRoom(error, this.#dataDir))
        throw new DroverError('disk_full', `${fullMessage(this.#dataDir)} The settings were not changed.`);
      throw new DroverError(
        'unavailable',
        `The settings could not be saved to ${file} (${(error as Error).message}); they were not changed.`,
      );
    }
  }
}
