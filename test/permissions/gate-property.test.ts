import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateCommand, SHELL_METACHARACTERS, type GatePolicy } from '../../electron/permissions/gate.js';
import { loadShellParser } from '../../electron/permissions/shell-parser.js';
import { analyse } from '../../electron/permissions/invocation.js';

beforeAll(async () => {
  await loadShellParser();
});

const grants = (...programGrants: string[]): GatePolicy => ({ allowlist: [], exactGrants: [], programGrants });

/**
 * For each grant, the options (with a value where they take one) that run code, write files,
 * read another configuration or reach beyond the project. None may ever be covered, alone, among
 * safe words, clustered, abbreviated or quoted.
 */
const RISKY: Record<string, readonly string[]> = {
  curl: [
    '-T f',
    '--upload-file f',
    '-K c',
    '--config c',
    '-o out',
    '-O',
    '--output out',
    '--remote-name',
    '--remote-name-all',
    '--output-dir d',
    '-D h',
    '--dump-header h',
    '-c jar',
    '--cookie-jar jar',
    '--trace t',
    '--trace-ascii t',
    '--stderr e',
    '--libcurl c',
    '--etag-save e',
    '--etag-compare e',
    '--hsts h',
    '--alt-svc a',
    '-d @f',
    '--data-binary @f',
    '-H @f',
    '-b jar',
    '-F a=b',
    '--form a=b',
    '--create-dirs',
    '-w @f',
    '--write-out @f',
    '--proto-default x',
    '-P',
    '--ftp-port x',
  ],
  sed: [
    '-i',
    '--in-place',
    '-f s',
    '--file s',
    '-i.bak',
    '-e e',
    '-e s/a/b/e',
    '-e w/o',
    '-e r/etc/passwd',
    '-e 1e',
    '-s -e Wout',
  ],
  'git fetch': [
    '--upload-pack x',
    '-u',
    '--upload-pack=x',
    '--recurse-submodules-default x',
    '-o x',
    '--server-option x',
  ],
  'git log': ['--ext-diff', '--textconv', '--output=x', '--show-signature', '--output x'],
  'git diff': ['--ext-diff', '--textconv', '--output=x', '--output x'],
  'git rebase': ['--exec x', '-x x', '-i', '--interactive', '-s x', '--strategy x', '-S', '--gpg-sign'],
  'git grep': ['-O', '--open-files-in-pager', '--op', '-Ovim', '--open-files-in-pager=vim'],
  'git push': ['--receive-pack x', '--exec x', '--repo x', '-o x', '--push-option x', '--signed'],
  'git commit': ['-S', '--gpg-sign', '-e', '--edit', '--template x', '-t x'],
  'git clone': ['--upload-pack x', '-u x', '--template x', '-c x=y', '--config x=y', '--separate-git-dir x'],
  'npm install': [
    '--prefix /x',
    '--script-shell x',
    '--node-options x',
    '--userconfig x',
    '--globalconfig x',
    '-g',
    '--global',
    '--registry x',
    '--cache /x',
  ],
  'npm test': ['--prefix /x', '--script-shell x', '--node-options x', '--userconfig x', '-- --config=x', '-- -r x'],
  'npm run build': ['--prefix /x', '--script-shell x', '-- --mode=x', '-- -c x'],
  'pnpm install': ['-C d', '--dir d', '--prefix d', '--store-dir d', '-g', '--global'],
  'make test': [
    '-f x',
    '--file x',
    '--makefile x',
    '-C d',
    '--directory d',
    '-I d',
    '--include-dir d',
    '--eval x',
    'CC=x',
    'SHELL=x',
    'MAKEFLAGS=x',
  ],
  'go test': [
    '-exec x',
    '-toolexec x',
    '-o x',
    '-C d',
    '-overlay x',
    '-coverprofile x',
    '-cpuprofile x',
    '-memprofile x',
    '-trace x',
    '-outputdir d',
    '--exec x',
  ],
  'go build': ['-exec x', '-toolexec x', '-o x', '-C d', '-pkgdir d', '-modfile x', '-overlay x'],
  'cargo build': [
    '--config x',
    '-Z x',
    '--manifest-path x',
    '--target-dir x',
    '--out-dir x',
    '-Zx',
    '--artifact-dir x',
  ],
  'pip install': [
    '-i x',
    '--index-url x',
    '--extra-index-url x',
    '-t x',
    '--target x',
    '--prefix x',
    '--root x',
    '--src x',
    '-C x',
    '--config-settings x',
    '--global-option x',
    '--trusted-host x',
    '-f x',
    '--find-links x',
  ],
  'python -m pytest': [
    '-p x',
    '-c x',
    '--rootdir x',
    '-o x',
    '--override-ini x',
    '--basetemp x',
    '--junitxml x',
    '--pdb',
    '--confcutdir x',
    '--pyargs',
    '--import-mode x',
  ],
  'docker run': [
    '-v /:/h',
    '--volume /:/h',
    '--mount x',
    '--privileged',
    '--cap-add x',
    '--device x',
    '--pid host',
    '--ipc host',
    '--userns host',
    '--security-opt x',
    '--network host',
    '--net host',
    '--env-file x',
    '--volumes-from x',
    '-u 0',
    '--user 0',
    '--gpus all',
    '--uts host',
    '--cgroupns host',
  ],
  'docker build': ['-o /x', '--output /x', '--secret x', '--ssh x', '--network host', '--network=host'],
  'kubectl get': ['--kubeconfig x', '--token x', '--server x', '--as x', '--raw x', '-s x', '--as-group x'],
  rg: ['--pre x', '-z', '--search-zip', '--pre=x', '--ignore-file x'],
  wget: [
    '-e x',
    '--execute x',
    '-o f',
    '--output-file f',
    '-a f',
    '--append-output f',
    '-P d',
    '--directory-prefix d',
    '-O f',
    '-r',
    '--recursive',
    '-x',
    '--use-askpass x',
  ],
  find: [
    '-exec x +',
    '-execdir x +',
    '-ok x',
    '-okdir x',
    '-delete',
    '-fprint f',
    '-fprint0 f',
    '-fprintf f x',
    '-fls f',
  ],
  tar: ['--checkpoint-action=exec=x', '--to-command x', '-I x', '--use-compress-program x', '-x', '-c'],
  diff: ['-l', '--paginate'],
};

/** Words that are fine for each of these programs, to surround the risky ones with. */
const SAFE_WORDS = ['file.txt', 'src', 'https://example.com/a', 'main', 'tests'];

/** An option nobody's table lists: the `zq` stem is no program's. */
const unknownOption = fc.stringMatching(/^[a-z]{2,10}$/).map((stem) => `--zq${stem}`);

/**
 * Leading parts of a long option: programs take unique prefixes. A prefix that is itself the exact
 * name of another option (`--text` of `--textconv`) is that option, not an abbreviation, and is
 * left out.
 */
function abbreviations(subject: string, option: string): string[] {
  const match = /^(--[a-z0-9-]{3,})/.exec(option);
  if (!match) return [];
  const spec = analyse(subject.split(' '))!.spec;
  const exact = new Set(spec.options.map((known) => `--${known.long}`));
  const name = match[1]!;
  const out: string[] = [];
  for (let length = 4; length < name.length - 1; length++)
    if (!exact.has(name.slice(0, length))) out.push(name.slice(0, length));
  return out;
}

/** The ways a risky option can be written: as listed, unknown, abbreviated, clustered after a safe flag, quoted. */
function riskyForms(subject: string): fc.Arbitrary<string>[] {
  const listed = RISKY[subject]!;
  const forms: fc.Arbitrary<string>[] = [fc.constantFrom(...listed), unknownOption];
  const prefixes = listed.flatMap((option) => abbreviations(subject, option));
  if (prefixes.length > 0) forms.push(fc.constantFrom(...prefixes).map((prefix) => `${prefix} x`));
  const shorts = listed.filter((option) => /^-[a-zA-Z]( |$)/.test(option));
  if (shorts.length > 0) forms.push(fc.constantFrom(...shorts).map((option) => `-s${option.slice(1)}`));
  const bare = listed.filter((option) => option.startsWith('-') && !option.includes(' '));
  if (bare.length > 0) forms.push(fc.constantFrom(...bare).map((option) => `"${option}"`));
  // A safe option that takes a value, written bare right before the risky one: a program whose value is optional reads the risky one as an option.
  const valued = analyse(subject.split(' '))!
    .spec.options.filter((option) => option.value === 'required' || option.value === 'optional')
    .map((option) => (option.long ? `--${option.long}` : `-${option.short}`));
  if (valued.length > 0)
    forms.push(
      fc.tuple(fc.constantFrom(...valued), fc.constantFrom(...listed)).map(([safe, risky]) => `${safe} ${risky}`),
    );
  return forms;
}

describe('a property of program grants', () => {
  const subjects = Object.keys(RISKY);

  it('never covers a risky or unknown option of the program, among safe words, clustered, abbreviated or quoted', () => {
    const candidate = fc
      .constantFrom(...subjects)
      .chain((subject) =>
        fc.record({
          subject: fc.constant(subject),
          risky: fc.oneof(...riskyForms(subject)),
          // For docker run the first operand is the image: what follows is the container's own command.
          before:
            subject === 'docker run' ? fc.constant([]) : fc.array(fc.constantFrom(...SAFE_WORDS), { maxLength: 2 }),
          after: fc.array(fc.constantFrom(...SAFE_WORDS), { maxLength: 2 }),
        }),
      )
      .map(({ subject, risky, before, after }) => ({
        subject,
        command: [subject, ...before, risky, ...after].join(' '),
      }));
    fc.assert(
      fc.property(candidate, ({ subject, command }) => {
        const result = evaluateCommand(command, grants(subject));
        if (result.decision !== 'ask') throw new Error(`${command} was allowed: ${result.reason}`);
      }),
      { numRuns: 3_000 },
    );
  });

  it('covers the same commands without the risky part (the property is not vacuous)', () => {
    for (const subject of subjects) {
      if (['tar', 'find'].includes(subject)) continue;
      // Installs take no named package and make one target per grant: they are covered with nothing after them.
      const operand = subject === 'sed' ? ' s/a/b/ file.txt' : /install$|^make /.test(subject) ? '' : ' file.txt';
      const plain = `${subject}${operand}`;
      expect(evaluateCommand(plain, grants(subject)).decision, plain).toBe('allow');
    }
  });

  it('never allows a candidate containing a shell metacharacter', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const meta = fc.constantFrom(...SHELL_METACHARACTERS);
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        meta,
        fc.nat(40),
        (grantWords, extra, char, at) => {
          const base = [...grantWords, ...extra].join(' ');
          const position = at % (base.length + 1);
          const candidate = base.slice(0, position) + char + base.slice(position);
          const policy = grants(grantWords.join(' '), grantWords[0]!);
          return evaluateCommand(candidate, policy).decision === 'ask';
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
