import type { AppInfo, PublicSettings, SettingsUpdate } from '@shared/contract.js';
import type { ProviderChange, TunableId } from '@shared/schemas/settings.js';
import { tunableParts } from '@shared/domain/tunables.js';
import type { ConnectionTestResult } from '@shared/schemas/connection-test.js';
import type { SandboxStatus } from '@shared/schemas/sandbox.js';
import { DroverError } from '@shared/ipc/drover-error.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** A local Ollama found by `detectLocalModel`. */
export interface LocalOllama {
  baseUrl: string;
  models: readonly string[];
}

/** Why a save failed: the service's message and, when it named one, the offending field. */
export interface SaveFailure {
  message: string;
  /** Dotted, as the contract names it (`provider.baseUrl`); null when the whole change was refused. */
  path: string | null;
}

/** A figure of settings.json a person edits in place: `background.<key>`, `budget.<key>`… */
export type { TunableId };

/** The sandbox's lists (issue 19): paths no sandboxed command reads, extra writable folders, hosts, Unix sockets. */
export type SandboxListKey = 'denyRead' | 'writablePaths' | 'allowedHosts' | 'allowUnixSockets';
const SANDBOX_LISTS: readonly SandboxListKey[] = ['denyRead', 'writablePaths', 'allowedHosts', 'allowUnixSockets'];

/** The sandbox's switches. */
export type SandboxToggleKey = 'enabled' | 'operatorLines' | 'runWithoutAsking';

/** The settings that are plain lists a person edits entry by entry. */
export type ListSettingKey = 'commandAllowlist' | 'passEnvironment' | `sandbox.${SandboxListKey}`;
const LIST_KEYS: readonly ListSettingKey[] = [
  'commandAllowlist',
  'passEnvironment',
  ...SANDBOX_LISTS.map((key) => `sandbox.${key}` as const),
];
const byListKey = <T>(value: T) =>
  Object.fromEntries(LIST_KEYS.map((key) => [key, value])) as Record<ListSettingKey, T>;

/** One list setting: its entries, and the state of saving a change to it. */
export interface ListSetting {
  readonly entries: readonly string[];
  readonly saving: boolean;
  /** Why the last change failed, in words; null when it did not. */
  readonly error: string | null;
  /** Replaces the list; true when it was stored (see `error` otherwise). */
  save(entries: readonly string[]): Promise<boolean>;
  clearError(): void;
}

/**
 * The app's settings as a page may see them (never a key), their changes, and a local
 * model server offered when none is connected. One per app.
 */
export class SettingsState {
  readonly #api: DroverApi;
  #settings = $state.raw<PublicSettings | null>(null);
  #dataDir = $state<string | null>(null);
  #loading = $state(false);
  #loadError = $state<string | null>(null);
  #saving = $state(false);
  #saveFailure = $state.raw<SaveFailure | null>(null);
  /** Bumped on each successful save, so a view can confirm it. */
  #savedCount = $state(0);
  #listSaving = $state<Record<ListSettingKey, boolean>>(byListKey(false));
  #listError = $state<Record<ListSettingKey, string | null>>(byListKey(null));
  #containment = $state.raw<AppInfo['containment'] | null>(null);
  #sandboxStatus = $state.raw<SandboxStatus | null>(null);
  #sandboxSaving = $state<SandboxToggleKey | null>(null);
  #sandboxError = $state<string | null>(null);
  #tunableSaving = $state<TunableId | null>(null);
  #tunableErrors = $state<Partial<Record<TunableId, string>>>({});
  #testing = $state(false);
  #testResult = $state.raw<ConnectionTestResult | null>(null);
  #testSeq = 0;
  #ollama = $state.raw<LocalOllama | null>(null);
  #detected = $state(false);
  #detection: Promise<void> | null = null;
  #loadSeq = 0;

  constructor(api: DroverApi) {
    this.#api = api;
  }

  /** Null until the first load answers. */
  get settings(): PublicSettings | null {
    return this.#settings;
  }

  /** Where settings.json lives, when the app told us. */
  get dataDir(): string | null {
    return this.#dataDir;
  }

  get loading(): boolean {
    return this.#loading;
  }

  get loadError(): string | null {
    return this.#loadError;
  }

  get saving(): boolean {
    return this.#saving;
  }

  get saveFailure(): SaveFailure | null {
    return this.#saveFailure;
  }

  get savedCount(): number {
    return this.#savedCount;
  }

  /** How this machine holds each task's processes together, when the app told us. */
  get containment(): AppInfo['containment'] | null {
    return this.#containment;
  }

  /** Whether this machine can sandbox commands, with what, or why not; null until the app told us. */
  get sandboxStatus(): SandboxStatus | null {
    return this.#sandboxStatus;
  }

  /** The sandbox switch being saved now, if any. */
  get sandboxSaving(): SandboxToggleKey | null {
    return this.#sandboxSaving;
  }

  /** Why the last change of a sandbox switch failed; null when it did not. */
  get sandboxError(): string | null {
    return this.#sandboxError;
  }

  /** Turns one of the sandbox's switches on or off; true when stored (see `sandboxError` otherwise). */
  async saveSandboxToggle(key: SandboxToggleKey, value: boolean): Promise<boolean> {
    if (this.#sandboxSaving) return false;
    this.#sandboxSaving = key;
    this.#sandboxError = null;
    try {
      this.#stored(await this.#api.updateSettings({ sandbox: { [key]: value } }));
      return true;
    } catch (error) {
      this.#sandboxError = `Not saved: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#sandboxSaving = null;
    }
  }

  /** The operator's command prefixes that run without asking; empty until the first load. */
  get allowlist(): readonly string[] {
    return this.#settings?.commandAllowlist ?? [];
  }

  /** A list setting, to show and edit: the command allowlist, or the variables passed to tasks on purpose. */
  list(key: ListSettingKey): ListSetting {
    const entries = (): readonly string[] => {
      const settings = this.#settings;
      if (!settings) return [];
      if (key === 'commandAllowlist') return settings.commandAllowlist;
      if (key === 'passEnvironment') return settings.tasks.passEnvironment;
      return settings.sandbox[sandboxListOf(key)];
    };
    const saving = () => this.#listSaving[key];
    const error = () => this.#listError[key];
    return {
      get entries() {
        return entries();
      },
      get saving() {
        return saving();
      },
      get error() {
        return error();
      },
      save: (entries) => this.#saveList(key, entries),
      clearError: () => {
        this.#listError[key] = null;
      },
    };
  }

  /** The figure being saved now, if any. */
  get tunableSaving(): TunableId | null {
    return this.#tunableSaving;
  }

  /** Why the last change of this figure failed, naming the field; undefined when it did not. */
  tunableError(id: TunableId): string | undefined {
    return this.#tunableErrors[id];
  }

  /** Shows a problem found on the page (before anything is sent), or clears it with null. */
  setTunableError(id: TunableId, message: string | null): void {
    const next = { ...this.#tunableErrors };
    if (message === null) delete next[id];
    else next[id] = message;
    this.#tunableErrors = next;
  }

  /** Saves one figure to settings.json, or takes it out (null: back to its default). True when stored. */
  async saveTunable(id: TunableId, value: number | boolean | null): Promise<boolean> {
    if (this.#tunableSaving) return false;
    this.#tunableSaving = id;
    this.setTunableError(id, null);
    const [section, key] = tunableParts(id);
    try {
      this.#stored(await this.#api.updateSettings({ [section]: { [key]: value } } as SettingsUpdate));
      return true;
    } catch (error) {
      this.setTunableError(id, `Not saved: ${errorMessage(error)}`);
      return false;
    } finally {
      this.#tunableSaving = null;
    }
  }

  get testing(): boolean {
    return this.#testing;
  }

  /** The last test's answer; cleared when the form changes what it would test. */
  get testResult(): ConnectionTestResult | null {
    return this.#testResult;
  }

  /** Tries the saved provider, or the one typed in the form (before saving). */
  async testConnection(provider?: ProviderChange): Promise<void> {
    const seq = ++this.#testSeq;
    this.#testing = true;
    this.#testResult = null;
    try {
      const result = await this.#api.testConnection(provider ? { provider } : {});
      if (seq === this.#testSeq) this.#testResult = result;
    } catch (error) {
      // A refused request (a typed URL that is no URL): said the same way as a failed test.
      if (seq === this.#testSeq)
        this.#testResult = { ok: false, reason: 'refused', message: errorMessage(error), url: null, status: null };
    } finally {
      if (seq === this.#testSeq) this.#testing = false;
    }
  }

  clearTestResult(): void {
    this.#testSeq++;
    this.#testing = false;
    this.#testResult = null;
  }

  /** A local Ollama, once detection found one. */
  get ollama(): LocalOllama | null {
    return this.#ollama;
  }

  /** True once detection has answered (found or not). */
  get detected(): boolean {
    return this.#detected;
  }

  async load(): Promise<void> {
    const seq = ++this.#loadSeq;
    this.#loading = true;
    try {
      const [settings, info] = await Promise.all([this.#api.getSettings({}), this.#api.appInfo({}).catch(() => null)]);
      if (seq !== this.#loadSeq) return;
      this.#settings = settings;
      if (info) {
        this.#dataDir = info.dataDir;
        this.#containment = info.containment;
        this.#sandboxStatus = info.sandbox;
      }
      this.#loadError = null;
    } catch (error) {
      if (seq !== this.#loadSeq) return;
      this.#loadError = `Could not load the settings: ${errorMessage(error)}`;
    } finally {
      if (seq === this.#loadSeq) this.#loading = false;
    }
  }

  /** Applies a change; true when it was stored (see `saveFailure` otherwise). */
  async save(change: SettingsUpdate): Promise<boolean> {
    if (this.#saving) return false;
    this.#saving = true;
    this.#saveFailure = null;
    try {
      this.#stored(await this.#api.updateSettings(change));
      this.#savedCount++;
      return true;
    } catch (error) {
      this.#saveFailure = {
        message: errorMessage(error),
        path: error instanceof DroverError ? (error.path ?? error.issues?.[0]?.path ?? null) : null,
      };
      return false;
    } finally {
      this.#saving = false;
    }
  }

  async #saveList(key: ListSettingKey, entries: readonly string[]): Promise<boolean> {
    if (this.#listSaving[key]) return false;
    this.#listSaving[key] = true;
    this.#listError[key] = null;
    try {
      const change: SettingsUpdate =
        key === 'commandAllowlist'
          ? { commandAllowlist: [...entries] }
          : key === 'passEnvironment'
            ? { tasks: { passEnvironment: [...entries] } }
            : { sandbox: { [sandboxListOf(key)]: [...entries] } };
      this.#stored(await this.#api.updateSettings(change));
      return true;
    } catch (error) {
      this.#listError[key] = `Could not save the list: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#listSaving[key] = false;
    }
  }

  /** The allowlist changed elsewhere (a session grant was made permanent): show it without a reload. */
  applyAllowlist(allowlist: readonly string[]): void {
    if (this.#settings) this.#settings = { ...this.#settings, commandAllowlist: [...allowlist] };
  }

  /** Forgets the model connection (a stored key is kept for next time). */
  disconnect(): Promise<boolean> {
    return this.save({ provider: null });
  }

  /** Connects the local Ollama found by `detectLocal` with the given model. */
  useOllama(model: string): Promise<boolean> {
    const ollama = this.#ollama;
    if (!ollama) return Promise.resolve(false);
    return this.save({ provider: { kind: 'openai-compatible', baseUrl: ollama.baseUrl, model, streaming: true } });
  }

  /** Looks for a local Ollama, once per app; later calls share the first answer. */
  detectLocal(): Promise<void> {
    this.#detection ??= this.#api
      .detectLocalModel({})
      .then(({ ollama }) => {
        this.#ollama = ollama;
      })
      .catch(() => {
        // Treated as nothing there (the page offers Settings anyway); a later call asks again.
        this.#ollama = null;
        this.#detection = null;
      })
      .finally(() => {
        this.#detected = true;
      });
    return this.#detection;
  }

  clearSaveFailure(): void {
    this.#saveFailure = null;
  }

  #stored(settings: PublicSettings): void {
    // A load racing this save must not put the old settings back.
    this.#loadSeq++;
    this.#loading = false;
    this.#settings = settings;
    this.#loadError = null;
  }
}

function sandboxListOf(key: `sandbox.${SandboxListKey}`): SandboxListKey {
  return key.slice('sandbox.'.length) as SandboxListKey;
}
