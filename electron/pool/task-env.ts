import { MARK_PREFIX } from '../process/identity.js';

/**
 * What Drover's own environment holds for Drover alone, and a task never inherits unless the
 * person passes it on purpose (`tasks.passEnvironment`):
 * - every `DROVER_*` variable (the host token, the native binding path, test switches), except
 *   the marks of other Drovers this one may be running inside;
 * - the secrets Drover reads from its environment (the provider keys, given by the caller): a
 *   task that printed one would put it in its log, and a task is not the model;
 * - what Electron's runtime set or reads for itself (`ELECTRON_*`, `CHROME_CRASHPAD_PIPE_NAME`);
 *   Electron's changed `XDG_CURRENT_DESKTOP` is given back its original value;
 * - npm's script variables (`npm_*`, `INIT_CWD`) when Drover itself was started by `npm start`
 *   or `npm run serve`, so a task's own npm does not take Drover's package for its own.
 */
export function isPrivateVariable(name: string, env: NodeJS.ProcessEnv, secrets: readonly string[] = []): boolean {
  if (name.startsWith('DROVER_')) return !name.startsWith(MARK_PREFIX) || name === `${MARK_PREFIX}ID`;
  if (secrets.includes(name)) return true;
  if (name.startsWith('ELECTRON_') || name === 'CHROME_CRASHPAD_PIPE_NAME' || name === 'ORIGINAL_XDG_CURRENT_DESKTOP') return true;
  if (env.npm_package_name === 'drover' && (name.startsWith('npm_') || name === 'INIT_CWD')) return true;
  return false;
}

/** A task's environment: the person's, less what is Drover's own (see isPrivateVariable), plus what they pass on purpose. */
export function taskEnvironment(env: NodeJS.ProcessEnv, options: { pass?: readonly string[]; secrets?: readonly string[] } = {}): Record<string, string> {
  const kept = new Set(options.pass ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isPrivateVariable(name, env, options.secrets) && !kept.has(name)) continue;
    out[name] = value;
  }
  // Electron replaces XDG_CURRENT_DESKTOP for itself and keeps the person's value here ("undefined" when there was none).
  const original = env.ORIGINAL_XDG_CURRENT_DESKTOP;
  if (original !== undefined && !kept.has('XDG_CURRENT_DESKTOP')) {
    if (original === 'undefined') delete out.XDG_CURRENT_DESKTOP;
    else out.XDG_CURRENT_DESKTOP = original;
  }
  return out;
}
