import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insideDataFolder, refusalOf, SandboxService } from '../../electron/sandbox/sandbox-service.js';
import {
  SANDBOX_DEFAULTS,
  SandboxHostSchema,
  SandboxPathSchema,
  SandboxSettingsSchema,
  sandboxPolicyOf,
} from '../../shared/schemas/sandbox.js';
import { tempDir } from '../helpers.js';

describe('the policy schema', () => {
  it('takes absolute and ~/ paths, and refuses relative ones, .., globs and control characters', () => {
    for (const good of ['/etc/x', '~', '~/.ssh', '/a b/c'])
      expect(SandboxPathSchema.safeParse(good).success).toBe(true);
    for (const bad of ['rel', './x', '~user/x', '/a/../b', '/a/*', '/a/?', '/x\u0001', ''])
      expect(SandboxPathSchema.safeParse(bad).success, bad).toBe(false);
  });

  it('takes host names, wildcards, addresses and ports; refuses the rest', () => {
    for (const good of ['registry.npmjs.org', '*.github.com', '127.0.0.1:8080', '[::1]', '[::1]:443', 'LOCALHOST'])
      expect(SandboxHostSchema.safeParse(good).success, good).toBe(true);
    expect(SandboxHostSchema.parse('LOCALHOST')).toBe('localhost');
    for (const bad of ['http://x', 'a b', '[::1', '::1', 'x:70000', 'x:0', '*', '*.*.com', 'a..b'])
      expect(SandboxHostSchema.safeParse(bad).success, bad).toBe(false);
  });

  it('names an unknown key; the defaults fill what the file leaves out', () => {
    const result = SandboxSettingsSchema.safeParse({ enabled: true, bogus: 1 });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain('bogus');
    expect(sandboxPolicyOf({ runWithoutAsking: true })).toEqual({ ...SANDBOX_DEFAULTS, runWithoutAsking: true });
    expect(sandboxPolicyOf(undefined)).toEqual(SANDBOX_DEFAULTS);
  });
});

describe("the library's refusal lines", () => {
  const at = new Date(0);
  it('become a path or a host; devices and /proc are left out', () => {
    expect(refusalOf('deny openat /var/tmp/x y', at)).toEqual({
      kind: 'path',
      target: '/var/tmp/x y',
      detail: 'openat',
      at: at.toISOString(),
    });
    expect(refusalOf('deny network-outbound example.com:443 (user denied)', at)).toMatchObject({
      kind: 'host',
      target: 'example.com:443',
      detail: 'user denied',
    });
    expect(refusalOf('deny openat /dev/console', at)).toBeNull();
    expect(refusalOf('something else', at)).toBeNull();
  });
});

describe("Drover's data folder and the working folder", () => {
  it('a working folder at or inside the data folder is seen; one beside it is not', () => {
    const data = tempDir();
    mkdirSync(join(data, 'work'));
    expect(insideDataFolder(data, data)).toBe(true);
    expect(insideDataFolder(data, join(data, 'work'))).toBe(true);
    expect(insideDataFolder(data, tempDir())).toBe(false);
  });

  it('turns the sandbox off, saying why, rather than running commands among transcripts and settings', () => {
    const data = tempDir();
    const service = new SandboxService(
      {
        policy: () => SANDBOX_DEFAULTS,
        dataDir: data,
        runDir: tempDir(),
        workspace: () => data,
        askNetwork: async () => 'reject' as const,
        refused: () => {},
        hostsChanged: () => {},
        log: () => {},
      },
      () => ({ available: true, platform: 'linux', detail: 'bubblewrap' }),
    );
    expect(service.status.available).toBe(false);
    expect(service.status.detail).toContain("inside Drover's data folder");
    expect(service.unavailableNotice('s')).toContain("inside Drover's data folder");
  });
});

describe('the sandbox service without a sandbox', () => {
  const deps = (policy = SANDBOX_DEFAULTS, mode: 'auto' | 'off' = 'auto') => ({
    policy: () => policy,
    dataDir: tempDir(),
    runDir: tempDir(),
    workspace: () => tempDir(),
    askNetwork: async () => 'reject' as const,
    refused: () => {},
    hostsChanged: () => {},
    mode,
    log: () => {},
  });
  const none = { available: false, platform: 'win32', detail: 'no sandbox is available on win32' };

  it('says so once per session, never claims to be active, and refuses to wrap', async () => {
    const service = new SandboxService(deps(), () => none);
    expect(service.applies('model')).toBe(false);
    expect(service.unavailableNotice('s1')).toContain('no sandbox is available on win32');
    expect(service.unavailableNotice('s1')).toBeNull();
    expect(service.unavailableNotice('s2')).not.toBeNull();
    expect(service.view('s1').active).toBe(false);
    await expect(
      service.wrap({ sessionId: 's1', taskId: 'bg_1', command: 'true', shell: '/bin/sh', cwd: '/' }),
    ).rejects.toThrow('no sandbox');
  });

  it('is silent when the settings turn it off, or the run does', () => {
    expect(
      new SandboxService(deps({ ...SANDBOX_DEFAULTS, enabled: false }), () => none).unavailableNotice('s'),
    ).toBeNull();
    expect(new SandboxService(deps(SANDBOX_DEFAULTS, 'off'), () => none).unavailableNotice('s')).toBeNull();
  });

  it("applies to the operator's lines only when the settings say so", () => {
    const on = { available: true, platform: 'linux', detail: 'bubblewrap' };
    expect(new SandboxService(deps(), () => on).applies('operator')).toBe(false);
    expect(new SandboxService(deps({ ...SANDBOX_DEFAULTS, operatorLines: true }), () => on).applies('operator')).toBe(
      true,
    );
    expect(new SandboxService(deps({ ...SANDBOX_DEFAULTS, enabled: false }), () => on).applies('model')).toBe(false);
  });

  it("keeps a session's hosts apart from another's, and tells of each change", () => {
    const changed: string[] = [];
    const service = new SandboxService({ ...deps(), hostsChanged: (id) => changed.push(id) }, () => none);
    service.allowHost('a', 'api.example.com:443');
    service.allowHost('a', 'api.example.com:443');
    expect(service.view('a').hosts).toEqual(['api.example.com:443']);
    expect(service.view('b').hosts).toEqual([]);
    expect(service.removeHost('b', 'api.example.com:443')).toBe(false);
    expect(service.removeHost('a', 'api.example.com:443')).toBe(true);
    expect(changed).toEqual(['a', 'a']);
  });
});
