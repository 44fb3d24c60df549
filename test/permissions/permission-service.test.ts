import { beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../shared/contract.js';
import type { PermissionRequest } from '../../shared/schemas/permission.js';
import { EventBus } from '../../electron/core/event-bus.js';
import { PermissionService } from '../../electron/permissions/permission-service.js';
import { loadShellParser } from '../../electron/permissions/shell-parser.js';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, until } from '../helpers.js';

beforeAll(async () => {
  await loadShellParser();
});

function setup(allowlist: string[] = [], workspace?: string) {
  const bus = new EventBus(contract);
  const requests: PermissionRequest[] = [];
  const resolved: string[] = [];
  bus.subscribe((name, payload) => {
    if (name === 'permissionRequested') requests.push((payload as { request: PermissionRequest }).request);
    if (name === 'permissionResolved') resolved.push((payload as { answer: string }).answer);
  });
  const saved: string[] = [...allowlist];
  const service = new PermissionService({
    bus,
    ready: Promise.resolve(),
    allowlist: () => saved,
    ...(workspace ? { workspace: () => workspace } : {}),
    addToAllowlist: (entry) => {
      saved.push(entry);
      return saved;
    },
  });
  const ask = (command: string, signal = new AbortController().signal, cwd = '/w') =>
    service.check({ sessionId: 's1', command, cwd, background: true }, signal);
  return { service, requests, resolved, ask, saved };
}

describe('permission requests', () => {
  it('asks for a granted command run outside the working folder, through a symbolic link too, and says why', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'project'));
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'project', 'link'));
    const { ask, requests, service } = setup(['npm test'], join(root, 'project'));
    expect(await ask('npm test', undefined, join(root, 'project'))).toMatchObject({ allowed: true });
    const outside = ask('npm test', undefined, join(root, 'project', 'link'));
    await until(() => requests.length === 1, 'the request');
    expect(requests[0]!.reason).toMatch(/outside the session's working folder/);
    service.answer('s1', requests[0]!.id, 'reject');
    expect(await outside).toMatchObject({ allowed: false, rejected: true });
  });

  it('allows what the allowlist covers without asking', async () => {
    const { ask, requests } = setup(['npm run build']);
    expect(await ask('npm run build -- src')).toMatchObject({ allowed: true });
    expect(requests).toEqual([]);
  });

  it('asks, shows the command escaped, and a program grant then covers other arguments but not a pipe', async () => {
    const { service, ask, requests } = setup();
    const first = ask('curl -s https://example.com/a');
    await until(() => requests.length === 1, 'the request');
    expect(requests[0]).toMatchObject({
      command: 'curl -s https://example.com/a',
      programGrant: 'curl',
      background: true,
      cwd: '/w',
    });
    expect(service.pending('s1')).toHaveLength(1);
    expect(service.allPending()).toEqual([{ sessionId: 's1', requestId: requests[0]!.id }]);
    service.answer('s1', requests[0]!.id, 'allow_program');
    expect(service.allPending()).toEqual([]);
    expect(await first).toMatchObject({ allowed: true });
    expect(await ask('curl -s https://example.com/b')).toMatchObject({
      allowed: true,
      reason: 'covered by the grant "curl"',
    });
    const piped = ask('curl x | sh');
    await until(() => requests.length === 2, 'the second request');
    expect(requests[1]!.programGrant).toBeNull();
    expect(() => service.answer('s1', requests[1]!.id, 'allow_program')).toThrow(/not offered/);
    service.answer('s1', requests[1]!.id, 'reject');
    expect(await piped).toEqual({ allowed: false, reason: 'rejected by the person', rejected: true });
  });

  it('shows control characters escaped', async () => {
    const { ask, requests, service } = setup();
    const pending = ask('ls\nrm -rf ~');
    await until(() => requests.length === 1, 'the request');
    expect(requests[0]!.visibleCommand).toBe('ls\\nrm -rf ~');
    service.answer('s1', requests[0]!.id, 'reject');
    await pending;
  });

  it('withdraws a request when its turn ends: never an implicit allow', async () => {
    const { ask, requests, resolved, service } = setup();
    const controller = new AbortController();
    const pending = ask('make deploy', controller.signal);
    await until(() => requests.length === 1, 'the request');
    controller.abort();
    expect(await pending).toMatchObject({ allowed: false });
    expect(resolved).toEqual(['withdrawn']);
    expect(service.pending('s1')).toEqual([]);
    expect(() => service.answer('s1', requests[0]!.id, 'allow')).toThrow(/No pending permission request/);
  });

  it('keeps exact grants exact, lists, revokes and promotes them', async () => {
    const { ask, requests, service, saved } = setup();
    const first = ask('make test');
    await until(() => requests.length === 1, 'the request');
    service.answer('s1', requests[0]!.id, 'allow_always');
    await first;
    expect(await ask('make test')).toMatchObject({ allowed: true });
    expect(service.grants('s1')).toEqual([
      { kind: 'exact', value: 'make test', covers: 'exactly this command, in the working folder' },
    ]);
    expect(service.promote('s1', 'exact', 'make test').allowlist).toEqual(['make test']);
    expect(saved).toEqual(['make test']);
    expect(service.revoke('s1', 'exact', 'make test')).toEqual([]);
    expect(() => service.revoke('s1', 'exact', 'make test')).toThrow(/No exact grant/);
    expect(service.grants('other')).toEqual([]);
  });
});
