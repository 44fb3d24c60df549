import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  main: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  build: {
    files: string[];
    directories: { buildResources: string };
    linux: { icon: string };
    mac: { icon: string };
    win: { icon: string };
  };
};

// electron-builder cannot run here (it downloads Electron), so its configuration is checked statically.
describe('installer configuration', () => {
  it('packs the built entry that package.json names', () => {
    expect(pkg.main).toBe('out/main/main.js');
    expect(pkg.build.files).toContain('out/main/**');
    expect(pkg.build.files).toContain('out/preload/**');
    expect(pkg.build.files).toContain('out/renderer/**');
  });

  it('has its icons and resources in build/', () => {
    expect(pkg.build.directories.buildResources).toBe('build');
    for (const icon of [pkg.build.linux.icon, pkg.build.mac.icon, pkg.build.win.icon])
      expect(existsSync(join(root, icon)), icon).toBe(true);
  });

  it('pins the versions this machine can install', () => {
    expect(Number(pkg.devDependencies.electron!.split('.')[0])).toBeGreaterThanOrEqual(45);
    expect(pkg.dependencies['better-sqlite3']).toMatch(/^12\./);
    expect(pkg.devDependencies.vite).toBe('8.3.8');
  });
});
