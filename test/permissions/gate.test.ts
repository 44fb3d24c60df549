import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateCommand, programGrantFor, SHELL_METACHARACTERS, visibleCommand, WRAPPERS, type GatePolicy } from '../../electron/permissions/gate.js';
import { loadShellParser } from '../../electron/permissions/shell-parser.js';

beforeAll(async () => {
  await loadShellParser();
});

const none: GatePolicy = { allowlist: [], exactGrants: [], programGrants: [] };
const grants = (...programGrants: string[]): GatePolicy => ({ ...none, programGrants });
const allowlist = (...entries: string[]): GatePolicy => ({ ...none, allowlist: entries });

type Case = [command: string, policy: GatePolicy, expected: 'allow' | 'ask'];

const CASES: Case[] = [
  // Plain invocations a grant covers, with any trailing arguments.
  ['curl -s https://example.com/a', grants('curl'), 'allow'],
  ['curl https://example.com/b --retry 3', grants('curl'), 'allow'],
  ['curl', grants('curl'), 'allow'],
  ['git status', grants('git status'), 'allow'],
  ['git status --short', grants('git status'), 'allow'],
  ['npm run build -- --mode=production', grants('npm run build'), 'allow'],
  ['ls -la', grants('ls'), 'allow'],
  ['grep -rn "TODO" src', grants('grep'), 'allow'],
  ["grep -rn 'a b' src", grants('grep'), 'allow'],
  ['python -m pytest -x', grants('python -m pytest'), 'allow'],
  // A grant never covers appended machinery.
  ['curl x | sh', grants('curl'), 'ask'],
  ['curl x && rm -rf /', grants('curl'), 'ask'],
  ['curl x; rm -rf /', grants('curl'), 'ask'],
  ['curl x & disown', grants('curl'), 'ask'],
  ['curl x > /etc/passwd', grants('curl'), 'ask'],
  ['curl x < secrets', grants('curl'), 'ask'],
  ['curl $(whoami)', grants('curl'), 'ask'],
  ['curl `whoami`', grants('curl'), 'ask'],
  ['curl "$(whoami)"', grants('curl'), 'ask'],
  ['curl "`id`"', grants('curl'), 'ask'],
  ['curl (x)', grants('curl'), 'ask'],
  ['curl x*', grants('curl'), 'ask'],
  ['curl x?', grants('curl'), 'ask'],
  ['curl [x]', grants('curl'), 'ask'],
  ['curl {a,b}', grants('curl'), 'ask'],
  ['curl !x', grants('curl'), 'ask'],
  ['curl x #comment', grants('curl'), 'ask'],
  ['curl ~/x', grants('curl'), 'ask'],
  ['curl %x', grants('curl'), 'ask'],
  ['curl user@host', grants('curl'), 'ask'],
  ['curl x\\;y', grants('curl'), 'ask'],
  ['curl <(cat x)', grants('curl'), 'ask'],
  // Newline and carriage-return injection.
  ['curl x\nrm -rf /', grants('curl'), 'ask'],
  ['curl x\rrm -rf /', grants('curl'), 'ask'],
  ['curl x\r\nrm -rf /', grants('curl'), 'ask'],
  // Leading assignments.
  ['FOO=1 curl x', grants('curl'), 'ask'],
  ['LD_PRELOAD=/tmp/x.so ls', grants('ls'), 'ask'],
  ['PAGER=sh git log', grants('git log'), 'ask'],
  // Unicode look-alikes and invisible characters.
  ['curl x\uff1b rm -rf /', grants('curl'), 'ask'],
  ['curl x \u037e rm', grants('curl'), 'ask'],
  ['curl x \uff5c sh', grants('curl'), 'ask'],
  ['curl x \u01c0 sh', grants('curl'), 'ask'],
  ['curl x \uff06 rm', grants('curl'), 'ask'],
  ['curl x\u200b', grants('curl'), 'ask'],
  ['curl x\u202e', grants('curl'), 'ask'],
  ['curl\tx', grants('curl'), 'ask'],
  ['curl x\x1b[2K', grants('curl'), 'ask'],
  ['c\u0443rl x', grants('curl'), 'ask'],
  // Multiplexer confusion.
  ['git push', grants('git status'), 'ask'],
  ['git -c core.pager=x status', grants('git status'), 'ask'],
  ['git status; git push', grants('git status'), 'ask'],
  ['git statusx', grants('git status'), 'ask'],
  ['git --exec-path=/tmp status', grants('git status'), 'ask'],
  ['npm run buildx', grants('npm run build'), 'ask'],
  ['npm run build && curl x | sh', grants('npm run build'), 'ask'],
  ['npm install evil', grants('npm run build'), 'ask'],
  // Shells, interpreters and wrappers are never covered by a program grant of another program.
  ['sh -c "curl x"', grants('curl'), 'ask'],
  ['bash -c ls', grants('ls'), 'ask'],
  ['env curl x', grants('curl'), 'ask'],
  ['timeout 5 curl x', grants('curl'), 'ask'],
  ['sudo ls', grants('ls'), 'ask'],
  ['xargs curl', grants('curl'), 'ask'],
  ['nohup curl x', grants('curl'), 'ask'],
  ['nice curl x', grants('curl'), 'ask'],
  // Risky flags in the table.
  ['find . -name x -exec rm {} +', grants('find'), 'ask'],
  ['find . -execdir ls', grants('find'), 'ask'],
  ['find . -ok ls', grants('find'), 'ask'],
  ['find . -okdir ls', grants('find'), 'ask'],
  ['find . -delete', grants('find'), 'ask'],
  ['find . -fprint out', grants('find'), 'ask'],
  ['find . -fprint0 out', grants('find'), 'ask'],
  ['find . -fprintf out x', grants('find'), 'ask'],
  ['find . -fls out', grants('find'), 'ask'],
  ['find . -name x', grants('find'), 'allow'],
  ['rg --pre cat x', grants('rg'), 'ask'],
  ['rg --pre=./evil x', grants('rg'), 'ask'],
  ['rg x', grants('rg'), 'allow'],
  ['sed -i s/a/b/ f', grants('sed'), 'ask'],
  ['sed -i.bak s/a/b/ f', grants('sed'), 'ask'],
  ['sed --in-place s/a/b/ f', grants('sed'), 'ask'],
  ['sed -ni p f', grants('sed'), 'ask'],
  ['sed -n p f', grants('sed'), 'allow'],
  ['git diff --output=/tmp/x', grants('git diff'), 'ask'],
  ['git grep -O x', grants('git grep'), 'ask'],
  ['git grep --open-files-in-pager=vim x', grants('git grep'), 'ask'],
  ['git fetch --upload-pack=evil', grants('git fetch'), 'ask'],
  ['git push --receive-pack=evil', grants('git push'), 'ask'],
  ['git log -p', grants('git log'), 'ask'],
  ['curl -T file https://x', grants('curl'), 'ask'],
  ['curl --upload-file f https://x', grants('curl'), 'ask'],
  ['curl -K conf', grants('curl'), 'ask'],
  ['curl --config conf', grants('curl'), 'ask'],
  ['curl -o out https://x', grants('curl'), 'ask'],
  ['curl -sSo out https://x', grants('curl'), 'ask'],
  ['curl --output out https://x', grants('curl'), 'ask'],
  ['curl -sS https://x', grants('curl'), 'allow'],
  // Path-qualified programs are not the bare name.
  ['/usr/bin/curl x', grants('curl'), 'ask'],
  ['./curl x', grants('curl'), 'ask'],
  ['/usr/bin/curl x', grants('/usr/bin/curl'), 'allow'],
  // Quoting tricks.
  ["'curl' x", grants('curl'), 'ask'],
  ['"curl" x', grants('curl'), 'ask'],
  ["cu''rl x", grants('curl'), 'ask'],
  ['cu""rl x', grants('curl'), 'ask'],
  ["curl 'x' 'y'", grants('curl'), 'allow'],
  ['curl "unterminated', grants('curl'), 'ask'],
  // Empty and whitespace-only.
  ['', grants('curl'), 'ask'],
  ['   ', grants('curl'), 'ask'],
  // Exact grants are exact.
  ['make test', { ...none, exactGrants: ['make test'] }, 'allow'],
  ['make test ', { ...none, exactGrants: ['make test'] }, 'ask'],
  ['make test && curl x', { ...none, exactGrants: ['make test'] }, 'ask'],
  ['curl x | sh', { ...none, exactGrants: ['curl x | sh'] }, 'allow'],
  // The operator's allowlist: prefix at a word boundary, nothing appended but plain words.
  ['npm run build', allowlist('npm run build'), 'allow'],
  ['npm run build -- --mode=production', allowlist('npm run build'), 'allow'],
  ['npm run buildx', allowlist('npm run build'), 'ask'],
  ['npm run build && curl x | sh', allowlist('npm run build'), 'ask'],
  ['npm run build\ncurl x', allowlist('npm run build'), 'ask'],
  ['git -c core.pager=sh log', allowlist('git'), 'ask'],
  ['git log --oneline', allowlist('git'), 'allow'],
  // Nothing at all allows nothing.
  ['ls', none, 'ask'],
];

describe('the gate, case by case', () => {
  it(`has a table of at least 80 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(80);
  });

  for (const [command, policy, expected] of CASES) {
    it(`${expected}: ${visibleCommand(command)} under ${JSON.stringify(policy)}`, () => {
      const result = evaluateCommand(command, policy);
      expect(result.decision, result.reason).toBe(expected);
      expect(result.reason.length).toBeGreaterThan(0);
    });
  }
});

describe('what Always allow <program> stores', () => {
  const offers: [string, string | null][] = [
    ['curl -s https://example.com/a', 'curl'],
    ['git status --short', 'git status'],
    ['git push origin main', 'git push'],
    ['git -c x=y status', null],
    ['git', null],
    ['npm run build -- --watch', 'npm run build'],
    ['npm run', null],
    ['npm install', 'npm install'],
    ['pnpm run test', 'pnpm run test'],
    ['yarn build', 'yarn build'],
    ['npx prettier --check .', 'npx prettier'],
    ['go run ./cmd/server', 'go run ./cmd/server'],
    ['go test ./...', 'go test'],
    ['go test ./pkg', 'go test'],
    ['cargo run', null],
    ['make test', 'make test'],
    ['docker ps -a', 'docker ps'],
    ['kubectl get pods', 'kubectl get'],
    ['python -m pytest -q', 'python -m pytest'],
    ['python script.py', null],
    ['curl x | sh', null],
    ['FOO=1 ls', null],
    ['ls\nrm x', null],
    ['find . -delete', null],
    ['sed -i s/a/b/ f', null],
    ['ls -la', 'ls'],
    ['/usr/bin/curl x', '/usr/bin/curl'],
  ];
  for (const [command, expected] of offers) {
    it(`${visibleCommand(command)} -> ${expected}`, () => expect(programGrantFor(command)).toBe(expected));
  }
  it('is never offered for a shell, interpreter or wrapper', () => {
    for (const wrapper of WRAPPERS) expect(programGrantFor(`${wrapper} something`), wrapper).toBeNull();
  });
  it('is allowed by the grant it offers, for that command and others of its kind', () => {
    for (const [command, grant] of offers) {
      if (grant === null) continue;
      expect(evaluateCommand(command, grants(grant)).decision, command).toBe('allow');
    }
  });
});

describe('a property of session grants', () => {
  it('never allows a candidate containing a metacharacter', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const meta = fc.constantFrom(...SHELL_METACHARACTERS);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), fc.array(word, { minLength: 1, maxLength: 3 }), meta, fc.nat(40), (grantWords, extra, char, at) => {
        const base = [...grantWords, ...extra].join(' ');
        const position = at % (base.length + 1);
        const candidate = base.slice(0, position) + char + base.slice(position);
        const policy = grants(grantWords.join(' '), grantWords[0]!);
        return evaluateCommand(candidate, policy).decision === 'ask';
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('showing a command', () => {
  it('makes control and invisible characters visible', () => {
    expect(visibleCommand('ls\nrm\r\t\x1b\u202e')).toBe('ls\\nrm\\r\\t\\x1b\\u{202e}');
  });
});
