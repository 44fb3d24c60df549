import type { Node } from 'web-tree-sitter';
import { hasUnsafeCharacters, visibleCommand } from '../../shared/domain/commands.js';
import { parseShell } from './shell-parser.js';

export { hasUnsafeCharacters, visibleCommand };
import { baseName, usesRiskyFlag } from './risky-flags.js';

/**
 * The permission gate's decisions, as pure functions: no I/O, no state. The tool layer and
 * the UI both call these. When in doubt, the answer is "ask".
 */
export interface GatePolicy {
  /** The operator's own prefixes (settings `command_allowlist`). */
  allowlist: readonly string[];
  /** Exact commands the person allowed always, for this session. */
  exactGrants: readonly string[];
  /** Program-wide grants for this session: `curl`, `git status`, `npm run build`. */
  programGrants: readonly string[];
}

export interface GateDecision {
  decision: 'allow' | 'ask';
  reason: string;
}

/** Characters that carry shell machinery; any of them keeps a command out of program-wide grants. */
export const SHELL_METACHARACTERS = ['|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}', '!', '#', '~', '%', '@', '\\', '\n', '\r'];

/** Programs that run other programs: never granted program-wide, only exactly. */
export const WRAPPERS = new Set([
  'sh', 'bash', 'zsh', 'fish', 'dash', 'ksh', 'csh', 'tcsh', 'pwsh', 'powershell', 'cmd',
  'python', 'python2', 'python3', 'node', 'deno', 'bun', 'perl', 'ruby', 'php', 'lua', 'osascript',
  'env', 'timeout', 'nice', 'nohup', 'stdbuf', 'time', 'xargs', 'sudo', 'doas', 'su', 'watch', 'command', 'exec', 'eval',
  'ssh', 'script', 'setsid', 'chroot', 'busybox', 'parallel', 'strace', 'ltrace', 'gdb', 'unbuffer', 'flock', 'ionice', 'taskset',
]);

/** Programs whose first argument selects what happens: the grant keeps it. */
export const MULTIPLEXERS = new Set(['git', 'go', 'npm', 'npx', 'pnpm', 'yarn', 'docker', 'podman', 'make', 'kubectl', 'cargo', 'pip', 'pip3', 'helm', 'brew', 'apt', 'apt-get', 'systemctl', 'gh']);

/** Multiplexer subcommands that run a named script or package: the grant keeps that name too. */
const RUNNERS: Readonly<Record<string, readonly string[]>> = {
  npm: ['run', 'run-script', 'exec'],
  pnpm: ['run', 'exec', 'dlx'],
  yarn: ['run', 'exec', 'dlx'],
  go: ['run'],
  cargo: ['run'],
};

export function hasMetacharacter(command: string): boolean {
  return SHELL_METACHARACTERS.some((char) => command.includes(char));
}

/**
 * The words of a single plain invocation (`program arg arg`), or null: anything the shell
 * would treat specially, a parse error, or a node that is not a plain or quoted word.
 */
export function plainWords(command: string): string[] | null {
  if (!command.trim() || hasUnsafeCharacters(command) || hasMetacharacter(command)) return null;
  const parsed = parseShell(command);
  if (!parsed || parsed.hasError) return null;
  const statements = parsed.root.namedChildren;
  if (parsed.root.type !== 'program' || statements.length !== 1) return null;
  const statement = statements[0]!;
  if (statement.type !== 'command') return null;
  const words: string[] = [];
  for (const part of statement.namedChildren) {
    if (part.type === 'command_name') {
      const name = part.namedChildren;
      if (name.length !== 1 || name[0]!.type !== 'word') return null;
      words.push(name[0]!.text);
    } else {
      const word = wordOf(part);
      if (word === null) return null;
      words.push(word);
    }
  }
  if (words.length === 0 || words[0]!.startsWith('-')) return null;
  return words;
}

function wordOf(node: Node): string | null {
  if (node.type === 'word' || node.type === 'number') return node.text;
  if (node.type === 'raw_string') return node.text.slice(1, -1);
  if (node.type === 'string') {
    const parts = node.namedChildren;
    if (parts.some((part) => part.type !== 'string_content')) return null;
    return node.text.slice(1, -1);
  }
  return null;
}

/**
 * The entry "Always allow <program>" would store for this command, or null where it is not
 * offered: anything but a single plain invocation, a wrapper, a risky flag, or a multiplexer
 * whose selecting argument is an option.
 */
export function programGrantFor(command: string): string | null {
  const words = plainWords(command);
  if (!words) return null;
  const [program, ...args] = words as [string, ...string[]];
  if (usesRiskyFlag(program, args)) return null;
  const name = baseName(program);
  if ((name === 'python' || name === 'python3') && args[0] === '-m' && isPlainWord(args[1])) return `${program} -m ${args[1]}`;
  if (WRAPPERS.has(name)) return null;
  if (!MULTIPLEXERS.has(name)) return program;
  const selector = args[0];
  if (!isPlainWord(selector)) return null;
  if (RUNNERS[name]?.includes(selector!) || name === 'npx') {
    if (name === 'npx') return `${program} ${selector}`;
    return isPlainWord(args[1]) ? `${program} ${selector} ${args[1]}` : null;
  }
  return `${program} ${selector}`;
}

function isPlainWord(word: string | undefined): boolean {
  return word !== undefined && word.length > 0 && !word.startsWith('-') && /^[A-Za-z0-9@._:/+=,-]+$/.test(word);
}

/** Decides whether a command may run without asking. */
export function evaluateCommand(command: string, policy: GatePolicy): GateDecision {
  if (!command.trim()) return ask('the command is empty');
  if (hasUnsafeCharacters(command)) return ask('the command contains control, format or non-ASCII characters');
  if (policy.exactGrants.includes(command)) return { decision: 'allow', reason: 'allowed always (this exact command)' };

  for (const prefix of policy.allowlist) {
    if (allowlistCovers(prefix, command)) return { decision: 'allow', reason: `matches the allowlist entry "${prefix}"` };
  }

  if (policy.programGrants.length > 0) {
    const words = plainWords(command);
    if (!words) return ask('not a single plain invocation, so no program-wide grant covers it');
    const risky = usesRiskyFlag(words[0]!, words.slice(1));
    if (risky) return ask(`uses ${risky}, which no program-wide grant covers`);
    for (const grant of policy.programGrants) {
      const granted = grant.split(' ');
      if (granted.length <= words.length && granted.every((word, i) => word === words[i])) {
        return { decision: 'allow', reason: `covered by the grant "${grant}"` };
      }
    }
  }
  return ask('no allowlist entry or grant covers it');
}

/**
 * The operator's prefixes keep prefix meaning, made safe: the command must start with the
 * prefix at a word boundary, and what follows must add no shell machinery or risky flag.
 */
export function allowlistCovers(prefix: string, command: string): boolean {
  const entry = prefix.trim();
  if (!entry || !command.startsWith(entry)) return false;
  const rest = command.slice(entry.length);
  if (rest === '') return true;
  if (rest[0] !== ' ') return false;
  if (hasMetacharacter(rest) || hasUnsafeCharacters(rest)) return false;
  const words = plainWords(command);
  if (!words) return false;
  return usesRiskyFlag(words[0]!, rest.trim().split(/\s+/)) === null;
}

function ask(reason: string): GateDecision {
  return { decision: 'ask', reason };
}
