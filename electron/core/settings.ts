import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issuePath } from '../../shared/ipc/errors.js';
import { SettingsSchema, type Settings } from '../../shared/schemas/settings.js';
import type { PoolPolicy } from '../pool/policy.js';

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
    return { settings: {}, problem: `${file}: ${issuePath(issue.path) || 'the file'}: ${issue.message}; using the defaults` };
  }
  return { settings: parsed.data, problem: null };
}

export function poolPolicyFrom(settings: Settings): Partial<PoolPolicy> {
  const b = settings.background ?? {};
  const policy: Partial<PoolPolicy> = {};
  if (b.enabled !== undefined) policy.enabled = b.enabled;
  if (b.maxConcurrent !== undefined) policy.maxConcurrent = b.maxConcurrent;
  if (b.defaultTimeoutSeconds !== undefined) policy.defaultTimeoutSeconds = b.defaultTimeoutSeconds;
  if (b.maxTimeoutSeconds !== undefined) policy.maxTimeoutSeconds = b.maxTimeoutSeconds;
  if (b.outputBufferBytes !== undefined) policy.outputWindowBytes = b.outputBufferBytes;
  if (b.stopGraceSeconds !== undefined) policy.stopGraceMs = b.stopGraceSeconds * 1000;
  if (b.foregroundWaitSeconds !== undefined) policy.foregroundWaitMs = b.foregroundWaitSeconds * 1000;
  return policy;
}
