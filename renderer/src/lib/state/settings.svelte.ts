import type { PublicSettings, SettingsUpdate } from '@shared/contract.js';
import { DroverError } from '@shared/ipc/errors.js';
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
  #allowlistSaving = $state(false);
  #allowlistError = $state<string | null>(null);
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

  /** The operator's command prefixes that run without asking; empty until the first load. */
  get allowlist(): readonly string[] {
    return this.#settings?.commandAllowlist ?? [];
  }

  get allowlistSaving(): boolean {
    return this.#allowlistSaving;
  }

  /** Why the last allowlist change failed; apart from `saveFailure`, which the model form shows. */
  get allowlistError(): string | null {
    return this.#allowlistError;
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
      if (info) this.#dataDir = info.dataDir;
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

  /** Replaces the command allowlist; true when it was stored (see `allowlistError` otherwise). */
  async saveAllowlist(allowlist: readonly string[]): Promise<boolean> {
    if (this.#allowlistSaving) return false;
    this.#allowlistSaving = true;
    this.#allowlistError = null;
    try {
      this.#stored(await this.#api.updateSettings({ commandAllowlist: [...allowlist] }));
      return true;
    } catch (error) {
      this.#allowlistError = `Could not save the allowlist: ${errorMessage(error)}`;
      return false;
    } finally {
      this.#allowlistSaving = false;
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

  clearAllowlistError(): void {
    this.#allowlistError = null;
  }

  #stored(settings: PublicSettings): void {
    // A load racing this save must not put the old settings back.
    this.#loadSeq++;
    this.#loading = false;
    this.#settings = settings;
    this.#loadError = null;
  }
}
