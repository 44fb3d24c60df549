import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** Asks scripts/require-node.mjs what it says of a Node version, in a Node of its own (it is plain JS). */
function problem(purpose: string, version: string): string | null {
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { nodeProblem } from './scripts/require-node.mjs'; console.log(JSON.stringify(nodeProblem(${JSON.stringify(purpose)}, ${JSON.stringify(version)})));`,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as string | null;
}

describe('which Node each use needs', () => {
  it('runs on 20.19 or newer and says what to install on an older one', () => {
    expect(problem('run', '20.19.0')).toBeNull();
    expect(problem('run', '22.1.0')).toBeNull();
    expect(problem('run', '20.18.3')).toMatch(
      /^Running Drover needs Node 20\.19 or newer; this is Node 20\.18\.3\. Install a current Node/,
    );
    expect(problem('run', '18.20.4')).toContain('nvm install 22');
  });

  it('builds the installers on 22.12 or newer only', () => {
    expect(problem('dist', '22.12.0')).toBeNull();
    expect(problem('dist', '24.0.0')).toBeNull();
    expect(problem('dist', '22.11.0')).toMatch(/^Building the desktop installers needs Node 22\.12 or newer/);
    expect(problem('dist', '20.20.2')).toContain('this is Node 20.20.2');
  });

  it('stops npm start and npm run dist with that line and exit 1, before anything else runs', () => {
    // This Node is 20 here and 22 on other machines: the check of `dist` either passes or says so.
    const dist = spawnSync(process.execPath, ['scripts/require-node.mjs', 'dist'], { cwd: root, encoding: 'utf8' });
    const tooOld = problem('dist', process.versions.node);
    expect(dist.status).toBe(tooOld ? 1 : 0);
    expect(dist.stderr.trim()).toBe(tooOld ? `drover: ${tooOld}` : '');
    const start = spawnSync(process.execPath, ['-e', "import('./scripts/node-check.mjs')"], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(start.status).toBe(0);
  });
});
