import { beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../shared/contract.js';
import type { PermissionRequest } from '../../shared/schemas/permission.js';
import { EventBus } from '../../electron/core/event-bus.js';
import { PermissionService } from '../../electron/permissions/permission-service.js';
import { evaluateReadOnly, READ_ONLY_ENTRIES } from '../../electron/permissions/read-only.js';
import { loadShellParser } from '../../electron/permissions/shell-parser.js';
import { tempDir, until } from '../helpers.js';

beforeAll(async () => {
  await loadShellParser();
});

const place = { workspace: '/w', shell: 'posix' as const };

describe('plan mode: what is read-only', () => {
  it.each([
    'pwd',
    'ls -la src',
    'cat README.md',
    'head -n 20 package.json',
    'tail -f logs/app.log',
    'wc -l src/a.ts',
    'grep -rn TODO src',
    'rg -n --hidden "fn main"',
    'find . -name a.ts -type f',
    "sed -n '1,20p' src/a.ts",
    'diff -u a.txt b.txt',
    'git status --short',
    'git log --oneline -n 5',
    'git diff --stat HEAD',
    'git show HEAD',
    'git blame src/a.ts',
    'git ls-files',
    'git rev-parse --show-toplevel',
  ])('runs %s without asking', (command) => {
    expect(evaluateReadOnly(command, place, '/w')).toMatchObject({ decision: 'allow' });
  });

  it.each([
    ['touch made.txt', /not a read-only command|no read-only rule covers it/],
    ['rm -rf build', /no read-only rule covers it/],
    ['npm test', /no read-only rule covers it/],
    ['make', /no read-only rule covers it/],
    ['curl https://example.com', /no read-only rule covers it/],
    ["sed -i 's/a/b/' src/a.ts", /read-only rule "sed" does not cover it/],
    ['find . -delete', /read-only rule "find" does not cover it/],
    ['rg --pre cat x', /read-only rule "rg" does not cover it/],
    ['git diff --output=patch.txt', /read-only rule "git diff" does not cover it/],
    ['git branch topic', /no read-only rule covers it/],
    ['git commit -m x', /no read-only rule covers it/],
    ['git -C /elsewhere status', /no read-only rule covers it/],
    ['ls > listing.txt', /no read-only rule covers it/],
    ['cat /etc/passwd', /outside the session's working folder/],
    ['cat ../../secret', /outside the session's working folder/],
    // A path stuck to a short option is a path too (run from /w/src: one .. stays inside, two leave).
    ['git blame -S/etc/passwd README.md', /-S\/etc\/passwd is outside the session's working folder/],
    ['git blame -S../../secret.txt README.md', /outside the session's working folder/],
    ['git blame -S../../../etc/passwd README.md', /outside the session's working folder/],
    ['grep -rf../../secret .', /outside the session's working folder/],
    ['grep -f/etc/passwd -r .', /outside the session's working folder/],
    ['rg -f/etc/passwd .', /outside the session's working folder/],
    ['git grep -f/etc/passwd', /outside the session's working folder/],
    ['diff -X/etc/passwd a b', /outside the session's working folder/],
    ['git diff -O/etc/passwd', /outside the session's working folder/],
    ['jq -n env', /no read-only rule covers it/],
  ])('asks for %s, saying why', (command, why) => {
    const decision = evaluateReadOnly(command, place, '/w/src');
    expect(decision.decision).toBe('ask');
    expect(decision.reason).toMatch(/^plan mode: only read-only commands run without asking/);
    expect(decision.reason).toMatch(why);
  });

  it('reads a path stuck to a short option like any other: inside the folder it runs', () => {
    expect(evaluateReadOnly('grep -rf../patterns.txt .', place, '/w/src').decision).toBe('allow');
    expect(evaluateReadOnly('git blame -S.. README.md', place, '/w').decision).toBe('ask');
  });

  it('asks for a read-only command run outside the working folder', () => {
    expect(evaluateReadOnly('ls', place, '/tmp').reason).toMatch(/outside the session's working folder/);
  });

  it('keeps the network, runners and writers out of its table', () => {
    for (const entry of READ_ONLY_ENTRIES) {
      expect(entry).not.toMatch(/^(curl|wget|npm|make|git (fetch|pull|push|branch|tag|stash|reflog|remote))\b/);
    }
  });
});

describe('plan mode in the permission service', () => {
  function setup() {
    const bus = new EventBus(contract);
    const requests: PermissionRequest[] = [];
    bus.subscribe((name, payload) => {
      if (name === 'permissionRequested') requests.push((payload as { request: PermissionRequest }).request);
    });
    const workspace = tempDir();
    let plan = true;
    const service = new PermissionService({
      bus,
      ready: Promise.resolve(),
      allowlist: () => ['touch', 'npm test'],
      workspace: () => workspace,
      planMode: () => plan,
      addToAllowlist: () => [],
    });
    const ask = (command: string) =>
      service.check({ sessionId: 's1', command, cwd: workspace, background: false }, new AbortController().signal);
    return { service, requests, ask, setPlan: (on: boolean) => (plan = on) };
  }

  it('asks for what the allowlist and the grants cover, offers no grant, and refuses one as an answer', async () => {
    const { service, requests, ask, setPlan } = setup();
    // Granted while in agent mode.
    setPlan(false);
    const first = ask('git commit -m wip');
    await until(() => requests.length === 1, 'the first request');
    expect(requests[0]!.planMode).toBe(false);
    service.answer('s1', requests[0]!.id, 'allow_always');
    expect(await first).toMatchObject({ allowed: true });
    expect(await ask('git commit -m wip')).toMatchObject({ allowed: true });
    expect(await ask('touch x')).toMatchObject({ allowed: true });

    setPlan(true);
    expect(await ask('ls -la')).toMatchObject({ allowed: true, reason: expect.stringMatching(/^plan mode, /) });
    const granted = ask('git commit -m wip');
    await until(() => requests.length === 2, 'the plan-mode request');
    const request = requests[1]!;
    expect(request).toMatchObject({ planMode: true, programGrant: null });
    expect(request.reason).toMatch(/plan mode: only read-only commands run without asking, and grants do not apply/);
    expect(() => service.answer('s1', request.id, 'allow_always')).toThrow(/plan mode, where grants do not apply/);
    expect(() => service.answer('s1', request.id, 'allow_program')).toThrow(/plan mode/);
    service.answer('s1', request.id, 'allow');
    expect(await granted).toMatchObject({ allowed: true, reason: 'allowed once by the person' });

    const allowlisted = ask('touch x');
    await until(() => requests.length === 3, 'the allowlisted command asked too');
    service.answer('s1', requests[2]!.id, 'reject');
    expect(await allowlisted).toMatchObject({ allowed: false, rejected: true });

    // The grants were kept for agent mode.
    setPlan(false);
    expect(await ask('git commit -m wip')).toMatchObject({ allowed: true });
    expect(service.grants('s1').map((grant) => grant.value)).toEqual(['git commit -m wip']);
  });
});
