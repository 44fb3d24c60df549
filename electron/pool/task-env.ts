import { delimiter, dirname, join } from 'node:path';
import { MARK_PREFIX } from '../process/identity.js';

/** Windows compares variable names without regard to case; unix does not. */
const fold = (name: string, platform: NodeJS.Platform): string => (platform === 'win32' ? name.toUpperCase() : name);

/**
 * What Drover's own environment holds for Drover alone, and a task never inherits unless the
 * person passes it on purpose (`tasks.passEnvironment`):
 * - every `DROVER_*` variable (the host token, the native binding path, test switches), except
 *   the marks of other Drovers this one may be running inside;
 * - the secrets Drover reads from its environment (the provider keys, given by the caller): a
 *   task that printed one would put it in its log, and a task is not the model;
 * - what Electron's runtime set or reads for itself (`ELECTRON_*`, `CHROME_CRASHPAD_PIPE_NAME`);
 *   Electron's changed `XDG_CURRENT_DESKTOP` is given back its original value;
 * - what an AppImage's runtime set for the packaged app (`APPIMAGE`, `APPDIR`, `ARGV0`, `OWD`);
 * - npm's script variables (`npm_*`, `INIT_CWD`, and the `node_modules/.bin` folders npm put in
 *   front of `PATH`) when Drover itself was started by `npm start` or `npm run serve`, so a task's
 *   own npm, tsc or vitest is not Drover's.
 */
function isPrivateVariable(
  name: string,
  env: NodeJS.ProcessEnv,
  secrets: readonly string[] = [],
  platform = process.platform,
): boolean {
  const key = fold(name, platform);
  if (key.startsWith('DROVER_'))
    return !key.startsWith(fold(MARK_PREFIX, platform)) || key === fold(`${MARK_PREFIX}ID`, platform);
  if (secrets.some((secret) => fold(secret, platform) === key)) return true;
  if (key.startsWith('ELECTRON_') || key === 'CHROME_CRASHPAD_PIPE_NAME' || key === 'ORIGINAL_XDG_CURRENT_DESKTOP')
    return true;
  if (env.APPIMAGE !== undefined && ['APPIMAGE', 'APPDIR', 'ARGV0', 'OWD'].includes(key)) return true;
  if (launchedByOwnNpm(env) && (key.startsWith(fold('npm_', platform)) || key === 'INIT_CWD')) return true;
  return false;
}

function launchedByOwnNpm(env: NodeJS.ProcessEnv): boolean {
  return env.npm_package_name === 'drover';
}

/** A task's environment: the person's, less what is Drover's own (see isPrivateVariable), plus what they pass on purpose. */
export function taskEnvironment(
  env: NodeJS.ProcessEnv,
  options: { pass?: readonly string[]; secrets?: readonly string[]; platform?: NodeJS.Platform } = {},
): Record<string, string> {
  const platform = options.platform ?? process.platform;
  const kept = new Set((options.pass ?? []).map((name) => fold(name, platform)));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isPrivateVariable(name, env, options.secrets, platform) && !kept.has(fold(name, platform))) continue;
    out[name] = value;
  }
  // Electron replaces XDG_CURRENT_DESKTOP for itself and keeps the person's value here ("undefined" when there was none).
  const original = env.ORIGINAL_XDG_CURRENT_DESKTOP;
  if (original !== undefined && !kept.has('XDG_CURRENT_DESKTOP')) {
    if (original === 'undefined') delete out.XDG_CURRENT_DESKTOP;
    else out.XDG_CURRENT_DESKTOP = original;
  }
  if (launchedByOwnNpm(env)) {
    const pathKey = Object.keys(out).find((name) => fold(name, platform) === fold('PATH', platform));
    if (pathKey) out[pathKey] = withoutNpmScriptPaths(out[pathKey]!, env);
  }
  return out;
}

/** PATH without what npm put in front of it to run Drover's own script: Drover's `node_modules/.bin` folders, and npm's node-gyp shim. */
function withoutNpmScriptPaths(path: string, env: NodeJS.ProcessEnv): string {
  const packageDir = env.npm_package_json ? dirname(env.npm_package_json) : env.INIT_CWD;
  const added = new Set<string>();
  for (let dir = packageDir; dir; dir = dirname(dir) === dir ? '' : dirname(dir))
    added.add(join(dir, 'node_modules', '.bin'));
  return path
    .split(delimiter)
    .filter((entry) => !added.has(entry) && !/[\\/]@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin$/.test(entry))
    .join(delimiter);
}
