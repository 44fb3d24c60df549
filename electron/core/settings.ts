import { readFileSync, renameSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { DroverError, issuePath } from '../../shared/ipc/errors.js';
import {
  SettingsSchema,
  type ProviderSettings,
  type PublicSettings,
  type Settings,
  type SettingsUpdate,
} from '../../shared/schemas/settings.js';
import type { SecretStore } from './secrets.js';
import type { PoolPolicy } from '../pool/policy.js';
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

export function poolPolicyFrom(settings: Settings): Partial<PoolPolicy> {
  const b = settings.background ?? {};
  const policy: Partial<PoolPolicy> = {};
  if (b.enabled !== undefined) policy.enabled = b.enabled;
  if (b.maxConcurrent !== undefined) policy.maxConcurrent = b.maxConcurrent;
  if (b.maxConcurrentTotal !== undefined) policy.maxConcurrentTotal = b.maxConcurrentTotal;
  if (b.defaultTimeoutSeconds !== undefined) policy.defaultTimeoutSeconds = b.defaultTimeoutSeconds;
  if (b.maxTimeoutSeconds !== undefined) policy.maxTimeoutSeconds = b.maxTimeoutSeconds;
  if (b.outputBufferBytes !== undefined) policy.outputWindowBytes = b.outputBufferBytes;
  if (b.stopGraceSeconds !== undefined) policy.stopGraceMs = b.stopGraceSeconds * 1000;
  if (b.foregroundWaitSeconds !== undefined) policy.foregroundWaitMs = b.foregroundWaitSeconds * 1000;
  return policy;
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
  #settings: Settings;
  #unreadable: boolean;

  constructor(dataDir: string, secrets: SecretStore, loaded: LoadedSettings, env: NodeJS.ProcessEnv = process.env) {
    this.#dataDir = dataDir;
    this.#secrets = secrets;
    this.#env = env;
    this.#settings = loaded.settings;
    this.#unreadable = loaded.problem !== null;
  }

  get current(): Settings {
    return this.#settings;
  }

  /** The provider with its key (stored first, else from the environment), or null when none is set. */
  provider(): { settings: ProviderSettings; apiKey: string | null } | null {
    const provider = this.#settings.provider;
    if (!provider) return null;
    return { settings: provider, apiKey: this.#secrets.get() ?? this.#env[KEY_VARIABLES[provider.kind]] ?? null };
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
      tasks: { passEnvironment: this.#settings.tasks?.passEnvironment ?? [] },
    };
  }

  update(change: SettingsUpdate): PublicSettings {
    const next: Settings = { ...this.#settings };
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
    if (change.background) next.background = { ...next.background, ...change.background };
    if (change.agent) next.agent = { ...next.agent, ...change.agent };
    if (change.commandAllowlist) next.commandAllowlist = change.commandAllowlist;
    if (change.notifications) next.notifications = { ...next.notifications, ...change.notifications };
    if (change.tasks) next.tasks = { ...next.tasks, ...change.tasks };
    try {
      this.#write(SettingsSchema.parse(next));
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
    this.#settings = next;
    return this.publicView();
  }

  #write(settings: Settings): void {
    const file = join(this.#dataDir, SETTINGS_FILE);
    // A file we could not read is kept aside, never silently replaced.
    if (this.#unreadable && existsSync(file)) renameSync(file, `${file}.unreadable-${Date.now()}`);
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
