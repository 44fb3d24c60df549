import type { ProgramSpec } from './option-parser.js';
import { cat, diff, find, grep, head, jq, ls, rg, sed, tail, wc } from './programs-files.js';
import { curl, wget } from './programs-net.js';
import { git, type Multiplexer } from './programs-git.js';
import {
  cargo,
  go,
  make,
  npm,
  pip,
  pnpm,
  pytest,
  unittest,
  yarn,
  gem,
  brew,
  uv,
  poetry,
  pipx,
  installsNamedPackages,
} from './programs-build.js';
import { docker, kubectl, podman } from './programs-containers.js';

export type { Multiplexer };

/** Programs with one table for all their arguments. */
export const PROGRAMS: Readonly<Record<string, ProgramSpec>> = {
  ls,
  cat,
  head,
  tail,
  wc,
  diff,
  grep,
  egrep: grep,
  fgrep: grep,
  rg,
  find,
  sed,
  jq,
  curl,
  wget,
  pytest,
  'py.test': pytest,
};

/** Programs whose first argument selects what happens: the grant keeps it (`git status`, `docker ps`, `make test`). */
export const MULTIPLEXERS: Readonly<Record<string, Multiplexer>> = {
  git,
  npm,
  pnpm,
  yarn,
  docker,
  podman,
  kubectl,
  make,
  go,
  cargo,
  pip,
  pip3: pip,
  gem,
  brew,
  uv,
  poetry,
  pipx,
  // Without tables: their subcommand is kept and only operands may follow it.
  helm: bare(),
  apt: bare(),
  'apt-get': bare(),
  systemctl: bare(),
  gh: bare(),
  dotnet: bare(),
  just: bare(),
  terraform: bare(),
  gradle: bare(),
  mvn: bare(),
  composer: bare(),
  mix: bare(),
  flutter: bare(),
  dart: bare(),
};

function bare(): Multiplexer {
  return { subcommands: {}, never: {} };
}

/** The other subcommands of a runner (`pdm sync`, `bundle install`): kept in the grant; a package named to add asks. */
export const RUNNER_OTHERS: Multiplexer = {
  subcommands: { add: installsNamedPackages, install: installsNamedPackages },
  never: {},
};

/**
 * `python -m <module>`: only modules known to test or lint the project are granted; pytest and
 * unittest with their tables, the linters with operands only. Any other module (`pip`, `json.tool`,
 * `http.server`…) is a program of its own and asks.
 */
export const PYTHON_MODULES: Readonly<Record<string, ProgramSpec>> = {
  pytest,
  unittest,
  mypy: { options: [] },
  black: { options: [] },
  ruff: { options: [] },
  flake8: { options: [] },
  pylint: { options: [] },
  isort: { options: [] },
};
export const PYTHONS = new Set(['python', 'python3', 'python2', 'py']);

/**
 * Runners: the grant keeps the subcommand and what it runs (`npm run build`, `uv run pytest`).
 * `script`: a script of the project's, whose arguments are operands only. `program`: a program,
 * whose arguments are checked against its own table, and which may never be one that is never widened.
 */
export const RUNNERS: Readonly<Record<string, Readonly<Record<string, 'script' | 'program'>>>> = {
  npm: { run: 'script', exec: 'program', x: 'program' },
  pnpm: { run: 'script', exec: 'program', dlx: 'program' },
  yarn: { run: 'script', exec: 'program', dlx: 'program' },
  bun: { run: 'script', x: 'program' },
  deno: { task: 'script' },
  uv: { run: 'program' },
  poetry: { run: 'program' },
  // pdm, rye and hatch run a project script or, failing that, any program: read as programs.
  pdm: { run: 'program' },
  pipenv: { run: 'program' },
  rye: { run: 'program' },
  hatch: { run: 'program' },
  bundle: { exec: 'program' },
  pipx: { run: 'program' },
  go: { run: 'script' },
};
/** Runners whose first word is what they run (`npx eslint`, `uvx ruff`). */
export const DIRECT_RUNNERS = new Set(['npx', 'bunx', 'uvx']);

/**
 * Never granted program-wide, by what they can do: run any program or any code, escape to a
 * shell, or act beyond the command's own work. Each is only ever allowed exactly, or asked.
 */
export const NEVER_WIDENED: Readonly<Record<string, readonly string[]>> = {
  shells: [
    'sh',
    'bash',
    'zsh',
    'fish',
    'dash',
    'ksh',
    'mksh',
    'csh',
    'tcsh',
    'pwsh',
    'powershell',
    'cmd',
    'nu',
    'xonsh',
    'elvish',
    'rbash',
  ],
  'interpreters and language runtimes': [
    'python',
    'python2',
    'python3',
    'py',
    'pypy',
    'pypy3',
    'node',
    'nodejs',
    'deno',
    'bun',
    'perl',
    'ruby',
    'php',
    'lua',
    'luajit',
    'osascript',
    'awk',
    'gawk',
    'mawk',
    'nawk',
    'sqlite3',
    'tclsh',
    'wish',
    'Rscript',
    'R',
    'java',
    'jshell',
    'groovy',
    'scala',
    'kotlin',
    'irb',
    'ghci',
    'runghc',
    'julia',
    'expect',
    'swift',
    'psql',
    'mysql',
    'redis-cli',
    'm4',
    'dc',
    'bc',
  ],
  'wrappers that run another program': [
    'cross-env',
    'concurrently',
    'npm-run-all',
    'run-p',
    'run-s',
    'dotenv',
    'env-cmd',
    'tsx',
    'ts-node',
    'wsl',
    'start-server-and-test',
    'env',
    'timeout',
    'nice',
    'nohup',
    'stdbuf',
    'time',
    'xargs',
    'watch',
    'script',
    'setsid',
    'busybox',
    'parallel',
    'strace',
    'ltrace',
    'gdb',
    'lldb',
    'valgrind',
    'unbuffer',
    'flock',
    'ionice',
    'taskset',
    'chrt',
    'prlimit',
    'caffeinate',
    'entr',
    'nodemon',
    'sg',
    'newgrp',
    'xdg-open',
    'open',
    'gio',
    'start',
    'at',
    'batch',
    'crontab',
    'launchctl',
    'schtasks',
  ],
  'privilege and namespace tools': [
    'sudo',
    'doas',
    'su',
    'pkexec',
    'runuser',
    'setpriv',
    'capsh',
    'chroot',
    'unshare',
    'nsenter',
    'systemd-run',
    'firejail',
    'bwrap',
    'machinectl',
  ],
  'terminal multiplexers and remote shells': [
    'tmux',
    'screen',
    'zellij',
    'ssh',
    'mosh',
    'telnet',
    'rsh',
    'socat',
    'nc',
    'ncat',
    'netcat',
  ],
  'pagers and editors with shell escapes': [
    'less',
    'more',
    'most',
    'vi',
    'vim',
    'nvim',
    'view',
    'ex',
    'ed',
    'nano',
    'emacs',
    'pico',
    'joe',
    'mc',
  ],
  'process control': ['kill', 'pkill', 'killall', 'xkill', 'skill', 'renice'],
  'programs whose operands act as options': ['tar', 'ar', 'cpio', 'pax', 'dd', 'jar', 'bsdtar'],
  'shell builtins that evaluate or run': [
    'source',
    '.',
    'eval',
    'builtin',
    'compgen',
    'complete',
    'coproc',
    'trap',
    'exec',
    'command',
    'enable',
    'mapfile',
    'readarray',
    'fc',
    'alias',
  ],
};

const NEVER = new Map<string, string>(
  Object.entries(NEVER_WIDENED).flatMap(([capability, names]) =>
    names.map((program) => [program, capability] as const),
  ),
);

/** Versioned interpreters: `python3.12`, `pypy3.10`, `node22`, `ruby3.3`, `perl5.36`, `php8.2`, `lua5.4`. */
const VERSIONED_RUNTIME = /^(python|pypy|node|nodejs|ruby|perl|php|lua|luajit|tclsh|wish|bash|zsh|ksh)[0-9][0-9.]*$/;

/** Why a program is never granted program-wide, or null. Windows names (`cmd.exe`, `PowerShell.EXE`) count as theirs. */
export function neverWidened(program: string): string | null {
  const name = baseName(program);
  const plain = name.replace(/\.(exe|cmd|bat|com)$/i, '');
  const capability =
    NEVER.get(plain) ??
    NEVER.get(plain.toLowerCase()) ??
    (VERSIONED_RUNTIME.test(plain) ? 'interpreters and language runtimes' : undefined);
  return capability ? `${name} is one of the ${capability}, never granted program-wide` : null;
}

export function baseName(program: string): string {
  return program.slice(Math.max(program.lastIndexOf('/'), program.lastIndexOf('\\')) + 1);
}
