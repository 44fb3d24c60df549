// Decides whether Electron can start on this machine, and prepares what it needs when
// run from source: a build of better-sqlite3 for Electron's ABI, kept apart from the
// Node build that the tests and the headless host use.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** @returns {{ ok: true, binary: string } | { ok: false, reason: string }} */
export function electronAvailability(root, env = process.env, platform = process.platform) {
  const pkgDir = join(root, 'node_modules', 'electron');
  if (!existsSync(join(pkgDir, 'package.json')))
    return { ok: false, reason: 'the electron package is not installed (run npm install)' };
  const pathFile = join(pkgDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const distDir = env.ELECTRON_OVERRIDE_DIST_PATH || join(pkgDir, 'dist');
  const binary = relative ? join(distDir, relative) : '';
  if (!binary || !existsSync(binary)) {
    return { ok: false, reason: `its binary was never downloaded (${binary || join(pkgDir, 'dist')} is missing)` };
  }
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { ok: false, reason: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)' };
  }
  return { ok: true, binary };
}

/** Path of better_sqlite3.node built for this Electron, building it on first use. */
export function electronSqliteBinding(root, env = process.env) {
  const electronVersion = JSON.parse(
    readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8'),
  ).version;
  const target = join(root, 'out', 'native', `electron-${electronVersion}-${process.platform}-${process.arch}`);
  const binding = join(target, 'better_sqlite3.node');
  if (existsSync(binding)) return binding;

  console.log(`drover: preparing better-sqlite3 for Electron ${electronVersion} (first start only)…`);
  const staging = join(target, 'staging');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const source = join(root, 'node_modules', 'better-sqlite3');
  for (const part of ['package.json', 'binding.gyp', 'src', 'deps'])
    cpSync(join(source, part), join(staging, part), { recursive: true });

  const run = (command, args) =>
    spawnSync(command, args, { cwd: staging, stdio: ['ignore', 'ignore', 'inherit'], env });
  const prebuilt = join(root, 'node_modules', 'prebuild-install', 'bin.js');
  let ok =
    existsSync(prebuilt) &&
    run(process.execPath, [prebuilt, '--runtime=electron', `--target=${electronVersion}`]).status === 0;
  if (!ok) {
    const gyp = env.npm_config_node_gyp || join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    ok =
      run(process.execPath, [
        gyp,
        'rebuild',
        '--release',
        '--runtime=electron',
        `--target=${electronVersion}`,
        '--dist-url=https://electronjs.org/headers',
      ]).status === 0;
  }
  const built = join(staging, 'build', 'Release', 'better_sqlite3.node');
  if (!ok || !existsSync(built))
    throw new Error('could not build better-sqlite3 for Electron (a download or a compiler is missing)');
  cpSync(built, binding);
  rmSync(staging, { recursive: true, force: true });
  return binding;
}
