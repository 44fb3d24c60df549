import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
/** The YAML reader electron-updater itself uses for latest-mac.yml (its dependency; no types of its own here). */
const jsYaml = createRequire(join(root, 'node_modules', 'electron-updater', 'package.json'))('js-yaml') as {
  load(text: string): unknown;
};
const workflowText = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  outputs?: Record<string, string>;
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { include: Record<string, string>[] } };
  steps: Step[];
}
const workflow = parse(workflowText) as {
  on: { push: { tags: string[] }; workflow_dispatch: unknown };
  permissions: Record<string, string>;
  jobs: { version: Job; installers: Job; release: Job };
};
const { version: versionJob, installers, release } = workflow.jobs;
const versionCheck = versionJob.steps.find((step) => step.name === 'Check the tag against package.json')!;
const pkgVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const signing = installers.steps.find((step) => step.name === 'Signing and notarisation')!;
const SECRETS = [
  'CSC_LINK',
  'CSC_KEY_PASSWORD',
  'APPLE_ID',
  'APPLE_APP_SPECIFIC_PASSWORD',
  'APPLE_TEAM_ID',
  'WIN_CSC_LINK',
  'WIN_CSC_KEY_PASSWORD',
];

const scratch = mkdtempSync(join(tmpdir(), 'drover-release-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the signing step's script as the runner would, with the given secrets set; returns its notices and what it exported. */
function runSigning(platform: string, secrets: Record<string, string>) {
  const githubEnv = join(scratch, `env-${platform}-${Object.keys(secrets).length}`);
  writeFileSync(githubEnv, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GITHUB_ENV: githubEnv,
    PLATFORM: platform,
  };
  for (const name of SECRETS) env[`SECRET_${name}`] = secrets[name] ?? '';
  const result = spawnSync('bash', ['-e', '-c', signing.run!], { env, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return { stdout: result.stdout, exported: readFileSync(githubEnv, 'utf8') };
}

/** Runs the version check's script in the checkout as the runner would, for the given ref. */
function runVersionCheck(refType: string, refName: string) {
  const githubOutput = join(scratch, `output-${refType}-${refName}`);
  writeFileSync(githubOutput, '');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GITHUB_OUTPUT: githubOutput,
    GITHUB_REF_TYPE: refType,
    GITHUB_REF_NAME: refName,
  };
  const result = spawnSync('bash', ['-e', '-c', versionCheck.run!], { cwd: root, env, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, output: readFileSync(githubOutput, 'utf8') };
}

describe('the release workflow', () => {
  it('runs on version tags and by hand', () => {
    expect(workflow.on.push.tags).toEqual(['v*']);
    expect(workflow.on).toHaveProperty('workflow_dispatch');
    expect(workflow.permissions).toEqual({ contents: 'read' });
  });

  it('builds each installer on its own platform and architecture', () => {
    const rows = installers.strategy!.matrix.include.map((row) => `${row.platform} ${row.arch}: ${row.targets}`);
    expect(rows).toEqual(['mac x64: dmg zip', 'mac arm64: dmg zip', 'win x64: nsis', 'linux x64: AppImage deb']);
    const os = Object.fromEntries(
      installers.strategy!.matrix.include.map((row) => [`${row.platform} ${row.arch}`, row.os]),
    );
    // GitHub's macos-15 runners are Apple silicon; macos-15-intel is the Intel image.
    expect(os['mac x64']).toBe('macos-15-intel');
    expect(os['mac arm64']).toBe('macos-15');
  });

  it('installs, checks Node and builds before electron-builder, on Node 22', () => {
    const runs = installers.steps.map((step) => step.run ?? step.uses ?? '');
    const setup = installers.steps.find((step) => step.uses?.startsWith('actions/setup-node'))!;
    expect(setup.with!['node-version']).toBe(22);
    const order = ['npm ci', 'node scripts/require-node.mjs', 'npm run build'].map((run) => runs.indexOf(run));
    const builder = runs.findIndex((run) => run.includes('npx electron-builder'));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order, builder]).toEqual([...order, builder].sort((a, b) => a - b));
    expect(runs[builder]).toContain('--publish never');
    expect(runs[builder]).toContain('--${{ matrix.arch }}');
  });

  it('hands every signing secret only to the step that checks it', () => {
    for (const name of SECRETS) expect(signing.env![`SECRET_${name}`]).toBe(`\${{ secrets.${name} }}`);
    const elsewhere = installers.steps.filter((step) => step !== signing && /secrets\./.test(stringify(step)));
    expect(elsewhere).toEqual([]);
  });

  it('builds unsigned, says so and turns identity discovery off when the secrets are absent', () => {
    const mac = runSigning('mac', {});
    expect(mac.stdout).toContain('::notice::macOS build not signed: secret CSC_LINK is not set');
    expect(mac.stdout).toContain('::notice::macOS build not notarised');
    expect(mac.exported).toContain('CSC_IDENTITY_AUTO_DISCOVERY=false');
    expect(mac.exported).toContain('EXTRA_BUILDER_ARGS=-c.mac.identity=-');
    expect(mac.exported).not.toContain('CSC_LINK<<');

    const win = runSigning('win', {});
    expect(win.stdout).toContain('::notice::Windows build not signed: secret WIN_CSC_LINK is not set');
    expect(win.exported).toContain('CSC_IDENTITY_AUTO_DISCOVERY=false');
  });

  it('signs and notarises with a complete set, and names the first secret missing from a partial one', () => {
    const all = Object.fromEntries(SECRETS.map((name) => [name, `value of ${name}`]));
    const mac = runSigning('mac', all);
    expect(mac.stdout).not.toContain('::notice::');
    for (const name of ['CSC_LINK', 'CSC_KEY_PASSWORD', 'APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID'])
      expect(mac.exported).toMatch(new RegExp(`^${name}<<(\\S+)\\nvalue of ${name}\\n\\1$`, 'm'));
    expect(mac.exported).not.toContain('CSC_IDENTITY_AUTO_DISCOVERY');

    const partial = runSigning('mac', { CSC_LINK: 'p12', CSC_KEY_PASSWORD: 'pw', APPLE_ID: 'me@example.com' });
    expect(partial.stdout).toContain(
      '::notice::macOS build not notarised: secret APPLE_APP_SPECIFIC_PASSWORD is not set',
    );
    expect(partial.exported).toContain('CSC_LINK<<');
    expect(partial.exported).not.toContain('APPLE_ID<<');

    const win = runSigning('win', all);
    expect(win.exported).toContain('WIN_CSC_LINK<<');
    expect(win.exported).not.toContain('CSC_IDENTITY_AUTO_DISCOVERY');
  });

  it('checks the tag against package.json in a quick first job, before any installer is built', () => {
    expect(installers.needs).toBe('version');
    expect(release.needs).toEqual(['version', 'installers']);
    // Quick: nothing installed or built in it.
    expect(versionJob.steps.map((step) => step.run ?? step.uses)).toEqual(['actions/checkout@v4', versionCheck.run]);
    expect(versionJob.outputs!.version).toBe('${{ steps.version.outputs.version }}');

    const wrong = runVersionCheck('tag', 'v999.0.0');
    expect(wrong.status).toBe(1);
    expect(wrong.stdout).toContain(
      `::error::The tag v999.0.0 does not match package.json's version ${pkgVersion} (expected v${pkgVersion})`,
    );
    const right = runVersionCheck('tag', `v${pkgVersion}`);
    expect(right.status).toBe(0);
    expect(right.output).toBe(`version=${pkgVersion}\n`);
    // Run by hand from a branch: any version will do.
    expect(runVersionCheck('branch', 'main').status).toBe(0);
  });

  it('uploads everything once, to a draft release, with the GitHub token', () => {
    expect(release.permissions).toEqual({ contents: 'write' });
    const upload = release.steps.find((step) => step.name === 'Upload to a draft release')!;
    expect(upload.env!.GH_TOKEN).toBe('${{ secrets.GITHUB_TOKEN }}');
    // The version the first job checked, not a second reading of its own.
    expect(upload.env!.VERSION).toBe('${{ needs.version.outputs.version }}');
    expect(upload.run).not.toContain('GITHUB_REF_NAME');
    expect(upload.run).toContain('--draft');
    const merge = release.steps.find((step) => step.name === 'Merge the macOS update descriptions')!;
    expect(merge.run).toContain(
      'node build/merge-mac-update-info.mjs dist/latest-mac-x64.yml dist/latest-mac-arm64.yml',
    );
  });
});

describe('the merged macOS update description', () => {
  const description = (arch: string, date: string) =>
    stringify({
      version: '0.2.0',
      files: [
        { url: `Drover-0.2.0-${arch}.zip`, sha512: `zip-${arch}`, size: 1 },
        { url: `Drover-0.2.0-${arch}.dmg`, sha512: `dmg-${arch}`, size: 2 },
      ],
      path: `Drover-0.2.0-${arch}.zip`,
      sha512: `zip-${arch}`,
      releaseDate: date,
    });

  function merge(...texts: string[]) {
    const paths = texts.map((text, index) => {
      const path = join(scratch, `latest-mac-${index}.yml`);
      writeFileSync(path, text);
      return path;
    });
    return spawnSync(process.execPath, [join(root, 'build', 'merge-mac-update-info.mjs'), ...paths], {
      encoding: 'utf8',
    });
  }

  it('lists both architectures’ files, so electron-updater finds the one for the Mac it runs on', () => {
    const result = merge(
      description('x64', '2026-01-02T00:00:00.000Z'),
      description('arm64', '2026-01-02T00:05:00.000Z'),
    );
    expect(result.status, result.stderr).toBe(0);
    const merged = parse(result.stdout) as {
      version: string;
      files: { url: string }[];
      path: string;
      releaseDate: string;
    };
    expect(merged.version).toBe('0.2.0');
    expect(merged.files.map((file) => file.url)).toEqual([
      'Drover-0.2.0-x64.zip',
      'Drover-0.2.0-x64.dmg',
      'Drover-0.2.0-arm64.zip',
      'Drover-0.2.0-arm64.dmg',
    ]);
    expect(merged.path).toBe('Drover-0.2.0-x64.zip');
    expect(merged.releaseDate).toBe('2026-01-02T00:05:00.000Z');
  });

  it('reads back in electron-updater’s own YAML reader with every string still a string', () => {
    const result = merge(
      description('x64', '2026-01-02T00:00:00.000Z'),
      description('arm64', '2026-01-02T00:05:00.000Z'),
    );
    expect(result.status, result.stderr).toBe(0);
    const read = jsYaml.load(result.stdout) as Record<string, unknown>;
    expect(typeof read.releaseDate).toBe('string');
    // The same values, of the same types, as the YAML 1.2 reading: no Date, number or boolean slipped in.
    expect(read).toEqual(parse(result.stdout));
    expect(read).toEqual({
      version: '0.2.0',
      files: ['x64', 'arm64'].flatMap((arch) => [
        { url: `Drover-0.2.0-${arch}.zip`, sha512: `zip-${arch}`, size: 1 },
        { url: `Drover-0.2.0-${arch}.dmg`, sha512: `dmg-${arch}`, size: 2 },
      ]),
      path: 'Drover-0.2.0-x64.zip',
      sha512: 'zip-x64',
      releaseDate: '2026-01-02T00:05:00.000Z',
    });
  });

  it('refuses descriptions of different versions or clashing file names', () => {
    const other = description('arm64', 'x').replace(/0\.2\.0/g, '0.3.0');
    expect(merge(description('x64', 'x'), other).status).not.toBe(0);
    expect(merge(description('x64', 'x'), description('x64', 'y')).status).not.toBe(0);
  });
});
