// Builds the app (electron-vite) when any source is newer than the build, so `npm start`
// and `npm run serve` always run what is on disk.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..');
const SOURCES = ['electron', 'shared', 'renderer', 'electron.vite.config.ts', 'package.json', 'tsconfig.base.json'];
const OUTPUTS = ['out/main/main.js', 'out/main/host.js', 'out/preload/preload.cjs', 'out/renderer/index.html'];

function newest(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = 0;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    latest = Math.max(latest, newest(join(path, name)));
  }
  return latest;
}

export function isStale() {
  const outputs = OUTPUTS.map((file) => join(root, file));
  if (!outputs.every((file) => existsSync(file))) return true;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  return Math.max(...SOURCES.map((source) => newest(join(root, source)))) > built;
}

export function ensureBuilt() {
  if (!isStale()) return;
  console.log('drover: building the app (sources changed since the last build)…');
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (result.status !== 0) {
    console.error('drover: the build failed (see above); nothing was started.');
    process.exit(result.status ?? 1);
  }
}
