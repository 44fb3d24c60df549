import { options, SCRIPT_ARGUMENTS, type ProgramSpec, type ValueCheck } from './option-parser.js';
import type { Multiplexer } from './programs-git.js';

/**
 * Package managers, build tools and test runners. Their grants run the project's own code (the
 * person granted `npm test`, `make`, `go test`); these tables keep out the options that would
 * run something else, read another configuration, or write outside the project.
 */

// npm, pnpm, yarn. Not --prefix, -C/--dir, --script-shell, --node-options, --userconfig, --globalconfig,
// -g/--global, --registry: each runs or installs something other than the project says.
const NODE_COMMON = `
  -s -w= -D -E -O -P -f -l -p -a -d -q
  --silent --quiet --loglevel= --json --workspace= --workspaces --include-workspace-root --if-present --no-audit --no-fund
  --ignore-scripts --prefer-offline --offline --prefer-online --dry-run --save-dev --save-exact --save-optional --save-peer
  --save-prod --no-save --production --omit= --include= --legacy-peer-deps --strict-peer-deps --force --depth= --all --long
  --parseable --color= --no-color --progress --no-progress --foreground-scripts --frozen-lockfile --no-frozen-lockfile
  --filter= --recursive -r --parallel --stream --reporter= --report-summary --aggregate-output --sequential --resume-from=
  --no-bail --bail --workspace-root --immutable --check-cache --inline-builds --mode= --update-checksums --dev --peer
  --optional --exact --tilde --caret --interactive --fix --audit-level= --only= --outdated --unicode= --before=`;

/**
 * Installing a package by name runs its code (install scripts, setup.py, a formula): a grant on
 * `npm install` covers installing what the project already declares, or a local path, never a
 * package named later.
 */
function namedPackages(words: readonly string[]): string | null {
  const named = words.find((word) => !word.startsWith('.') && !word.startsWith('/'));
  return named ? `${named} names a package to install, and installing runs its code` : null;
}

/** A subcommand that installs: operands must be local paths (options ask). */
export const installsNamedPackages: ProgramSpec = { options: [], positionals: namedPackages };

/** A package manager: a table for what it runs itself; what follows -- goes to the project's script, operands only. */
function packageManager(name: string, scripts: readonly string[]): Multiplexer {
  const table: ProgramSpec = { options: options(NODE_COMMON), afterDoubleDash: 'handed-on' };
  const install: ProgramSpec = { ...table, positionals: namedPackages };
  const subcommands: Record<string, ProgramSpec> = {};
  for (const command of scripts) subcommands[command] = INSTALLING.includes(command) ? install : table;
  // pnpm and yarn hand what follows a script-running command to the script itself: operands only.
  if (name !== 'npm') for (const command of SCRIPT_RUNNING) subcommands[command] = SCRIPT_ARGUMENTS;
  return {
    summary: `${scripts.join(', ')} with the listed options; what follows -- is handed to the script (operands only)`,
    subcommands,
    // yarn and pnpm run a script named as their first word (`yarn build`), and hand what follows it to the script.
    ...(name === 'npm' ? {} : { others: SCRIPT_ARGUMENTS }),
    never: {
      config: `${name} config changes what later commands run (script-shell, node-options, registry)`,
      set: `${name} set changes what later commands run`,
      pkg: `${name} pkg set can rewrite the scripts that later granted commands run`,
      'set-script': `${name} set-script rewrites the scripts that later granted commands run`,
      link: `${name} link installs outside the project`,
      explore: `${name} explore runs a command in a package's folder`,
      init: `${name} init runs a create-* package`,
      create: `${name} create runs a create-* package`,
      edit: `${name} edit opens an editor`,
      publish: `${name} publish sends the package to the registry`,
      unpublish: `${name} unpublish removes it from the registry`,
      token: `${name} token manages credentials`,
      login: `${name} login stores credentials`,
      adduser: `${name} adduser stores credentials`,
      logout: `${name} logout changes credentials`,
      access: `${name} access changes who may publish`,
      owner: `${name} owner changes who may publish`,
      deprecate: `${name} deprecate changes the registry`,
      'dist-tag': `${name} dist-tag changes the registry`,
      hook: `${name} hook changes the registry`,
    },
    aliases: {
      t: 'test',
      tst: 'test',
      i: 'install',
      in: 'install',
      ins: 'install',
      inst: 'install',
      insta: 'install',
      instal: 'install',
      isnt: 'install',
      isntall: 'install',
      it: 'install-test',
      cit: 'install-test',
      'run-script': 'run',
      rum: 'run',
      urn: 'run',
      rb: 'rebuild',
      ls: 'list',
      la: 'list',
      ll: 'list',
      c: 'config',
      innit: 'init',
      un: 'uninstall',
      rm: 'uninstall',
      r: 'uninstall',
      unlink: 'uninstall',
      remove: 'uninstall',
      upgrade: 'update',
      udpate: 'update',
    },
  };
}

const SCRIPT_RUNNING = ['test', 'run', 'start', 'stop', 'restart'];
const INSTALLING = ['install', 'add', 'update', 'up', 'install-test'];
const SCRIPTS = [
  ...SCRIPT_RUNNING,
  'install',
  'ci',
  'install-test',
  'add',
  'remove',
  'uninstall',
  'update',
  'up',
  'list',
  'outdated',
  'view',
  'info',
  'show',
  'audit',
  'why',
  'explain',
  'rebuild',
  'exec',
  'dlx',
  'pack',
  'prune',
  'dedupe',
  'version',
];
export const npm = packageManager('npm', SCRIPTS);
export const pnpm = packageManager('pnpm', SCRIPTS);
export const yarn = packageManager('yarn', SCRIPTS);

/** Make variables given on the command line can replace the commands make runs (CC=…, SHELL=…). */
function noVariables(words: readonly string[]): string | null {
  const assignment = words.find((word) => word.includes('='));
  return assignment ? `${assignment} sets a make variable, which can change the commands make runs` : null;
}

/** make's options: the target is the grant's subject, these are what may follow it. */
const makeOptions: ProgramSpec = {
  options: options(`
    -j? -k -n -s -B -q -w -r -R -i -S -t -e -p -O? -l?
    --jobs? --keep-going --just-print --dry-run --recon --silent --quiet --always-make --question --print-directory
    --no-print-directory --no-builtin-rules --no-builtin-variables --ignore-errors --no-keep-going --touch
    --environment-overrides --print-data-base --output-sync? --load-average? --trace --warn-undefined-variables --check-symlink-times`),
  // One target per grant: `make test deploy` asks under a `make test` grant.
  positionals: (words) =>
    noVariables(words) ?? (words.length > 0 ? `${words[0]} is another target than the one granted` : null),
};

export const make: Multiplexer = {
  summary: 'a target, then -j, -k, -n, -s, -B, -q and the like; not -f, -C, -I, --eval, nor VAR=value',
  subcommands: {},
  others: makeOptions,
  never: {},
};

// Go build flags shared by build, test, run, vet, list. Not -exec, -toolexec, -o, -C, -overlay, -pkgdir, -modfile,
// nor the profile and output flags that write files.
const GO_BUILD = `
  --v --x --n --a --race --msan --asan --cover --covermode= --coverpkg= --tags= --ldflags= --gcflags= --asmflags= --trimpath
  --mod= --modcacherw --buildvcs= --buildmode= --compiler= --gccgoflags= --p= --work --json --linkshared --pgo=
  --count= --run= --bench= --benchmem --benchtime= --short --timeout= --failfast --parallel= --cpu= --shuffle= --skip=
  --list= --fuzz= --fuzztime= --fuzzminimizetime= --vet= --args --i`;
const goSpec = (extra = ''): ProgramSpec => ({
  options: options(`${GO_BUILD} ${extra}`),
  style: 'go',
  afterDoubleDash: 'handed-on',
});
/** One table for the commands that take just the build flags (README lists them together). */
const goBuild = goSpec();

export const go: Multiplexer = {
  summary:
    'build, test, run, vet, list, fmt, mod, version, env (not env -w) with build flags; not -exec, -toolexec, -o, -C',
  subcommands: {
    build: goBuild,
    test: goBuild,
    run: goBuild,
    vet: goBuild,
    list: goSpec('--m --u --versions --retracted --deps --e --f= --find --export --compiled --test'),
    fmt: goSpec('--n --x'),
    mod: { options: options('--json --e --x --v'), style: 'go' },
    version: { options: options('--m --v --json'), style: 'go' },
    env: { options: options('--json --changed'), style: 'go' },
    doc: { options: options('--all --c --cmd --short --src --u'), style: 'go' },
    clean: { options: options('--i --n --r --x --cache --testcache --fuzzcache'), style: 'go' },
  },
  never: {
    generate: 'go generate runs the commands written in the source',
    tool: 'go tool runs a tool by name',
  },
};

// Not --config, -Z, --manifest-path, --target-dir, --out-dir: they run or write elsewhere.
const CARGO = `
  -r -p= -F= -j= -q -v --release --package= --workspace --all --exclude= --lib --bin= --bins --example= --examples --test=
  --tests --bench= --benches --all-targets --features= --all-features --no-default-features --target= --profile= --jobs=
  --quiet --verbose --color= --locked --offline --frozen --no-run --no-fail-fast --message-format= --keep-going --doc
  --ignored --future-incompat-report --timings? --check --fix --allow-dirty --allow-staged --no-deps`;

const cargoTable: ProgramSpec = { options: options(CARGO), afterDoubleDash: 'handed-on' };

export const cargo: Multiplexer = {
  summary:
    'build, check, test, run, clippy, fmt, doc, bench, tree with the listed options; not --config, -Z, --manifest-path, --target-dir',
  subcommands: Object.fromEntries(
    [
      'build',
      'check',
      'test',
      'run',
      'clippy',
      'fmt',
      'doc',
      'bench',
      'tree',
      'metadata',
      'clean',
      'update',
      'fetch',
    ].map((command) => [command, cargoTable]),
  ),
  never: {
    install: 'cargo install builds and installs outside the project',
    'install-update': 'installs outside the project',
    add: 'cargo add brings in a crate whose build script the next build runs',
  },
  aliases: { b: 'build', c: 'check', t: 'test', r: 'run', d: 'doc' },
};

// Not -i/--index-url, --extra-index-url, -t/--target, --prefix, --root, --src, -C/--config-settings,
// --global-option, --install-option, --trusted-host: other sources, other places, or code run at build time.
const PIP_INSTALL = `
  -r|--requirement= -e|--editable= -c|--constraint= -U -q -v --upgrade --upgrade-strategy= --no-deps --pre --quiet --verbose
  --dry-run --force-reinstall --ignore-installed --no-cache-dir --only-binary= --no-binary= --prefer-binary --require-hashes
  --no-build-isolation --no-warn-script-location --progress-bar= --report=`;

/** A requirements or constraints file on disk: one fetched from a URL can name any index. */
const localFile: ValueCheck = { allows: (value) => !value.includes('://'), note: 'a local file, not a URL' };

export const pip: Multiplexer = {
  summary:
    'install (from requirements or local paths), list, show, freeze, check, uninstall -y with the listed options; not other indexes, targets or build settings',
  subcommands: {
    install: {
      options: options(PIP_INSTALL, { '-r': localFile, '-c': localFile, '-e': localFile }),
      afterDoubleDash: 'operands',
      positionals: namedPackages,
    },
    list: {
      options: options(
        '-o -u -e -l --outdated --uptodate --editable --local --user --not-required --exclude-editable --include-editable --format= --pre',
      ),
    },
    show: { options: options('-f --files --verbose -v') },
    freeze: { options: options('-l --local --user --all --exclude-editable --exclude=') },
    check: { options: [] },
    uninstall: { options: options('-y --yes -r= --requirement=') },
  },
  never: { config: 'pip config changes what later commands install from' },
};

export const gem: Multiplexer = {
  summary: 'a package named to install asks',
  subcommands: { install: installsNamedPackages, update: installsNamedPackages },
  never: { build: 'gem build runs the gemspec' },
};

export const brew: Multiplexer = {
  summary: 'a formula named to install asks (formulae run code)',
  subcommands: { install: installsNamedPackages, reinstall: installsNamedPackages, upgrade: installsNamedPackages },
  never: { tap: 'brew tap adds formulae from anywhere', bundle: 'brew bundle installs from a Brewfile' },
};

export const uv: Multiplexer = {
  summary: 'uv run <program> is a runner; a package named to add asks',
  subcommands: { add: installsNamedPackages },
  never: { tool: 'uv tool runs and installs any tool', pip: 'uv pip installs packages, whose builds run code' },
};

export const poetry: Multiplexer = {
  summary: 'poetry run <program> is a runner; a package named to add asks',
  subcommands: { add: installsNamedPackages },
  never: { self: 'poetry self changes poetry itself', source: 'poetry source adds package sources' },
};

export const pipx: Multiplexer = {
  summary: 'pipx run <program> is a runner; a package named to install asks',
  subcommands: { install: installsNamedPackages, inject: installsNamedPackages, upgrade: installsNamedPackages },
  never: {},
};

// pytest. Not -p (loads a plugin), -c, --rootdir, -o/--override-ini, --basetemp, --confcutdir, --junitxml, --pdb.
export const pytest: ProgramSpec = {
  summary: 'selection, output and failure options; not -p, -c, -o, --rootdir, --basetemp, --junitxml, --pdb',
  options: options(`
    -q -v -x -s -l -r= -k= -m= -n= -W= -h
    --exitfirst --maxfail= --capture= --tb= --showlocals --lf --last-failed --ff --failed-first --nf --new-first --sw
    --stepwise --stepwise-skip --co --collect-only --durations= --durations-min= --disable-warnings --strict-markers
    --strict-config --dist= --no-header --no-summary --color= --code-highlight= --cov? --cov-report= --cov-branch --no-cov
    --deselect= --ignore= --ignore-glob= --doctest-modules --full-trace --runxfail --setup-show --setup-only --setup-plan
    --fixtures --fixtures-per-test --markers --help --version --verbosity= --quiet --verbose --continue-on-collection-errors
    --timeout=`),
};

export const unittest: ProgramSpec = {
  options: options(`-v -q -f -c -b -k= --verbose --quiet --failfast --catch --buffer --locals --durations=`),
};
