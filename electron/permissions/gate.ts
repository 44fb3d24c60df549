import { isAbsolute, posix, relative } from 'node:path';
import type { Node } from 'web-tree-sitter';
import { hasUnsafeCharacters, visibleCommand } from '../../shared/domain/commands.js';
import { analyse, uncovered, type Invocation } from './invocation.js';
import { parseShell, type ParsedCommand } from './shell-parser.js';

export { hasUnsafeCharacters, visibleCommand };

/**
 * The permission gate's decisions, as pure functions: no I/O, no state. The tool layer and the
 * UI both call these. It is an allow-list: a command runs without asking only when a rule covers
 * every word of it; when in doubt, the answer is "ask".
 */
export interface GatePolicy {
  /** The operator's own prefixes (settings `commandAllowlist`). */
  allowlist: readonly string[];
  /** Exact commands the person allowed always, for this session. */
  exactGrants: readonly string[];
  /** Program-wide grants for this session: `curl`, `git status`, `npm run build`. */
  programGrants: readonly string[];
  /** The session's working folder (a real path): grants and allowlist entries cover only commands run inside it, on paths inside it. */
  workspace?: string | undefined;
  /**
   * The shell that runs commands. Under cmd.exe (Windows) words do not mean what a POSIX shell
   * makes of them (`^` escapes, `'` does not quote, `/x` is an option), so only exact grants apply.
   */
  shell?: 'posix' | 'cmd';
  /** What the reasons call an allowlist entry (plan mode judges by its read-only rules instead). */
  entryName?: string;
}

export interface GateDecision {
  decision: 'allow' | 'ask';
  reason: string;
}

/** Characters that carry shell machinery; any of them keeps a command out of program-wide grants. */
export const SHELL_METACHARACTERS = [
  '|',
  '&',
  ';',
  '<',
  '>',
  '(',
  ')',
  '$',
  '`',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  '!',
  '#',
  '~',
  '%',
  '@',
  '\\',
  '\n',
  '\r',
];

export function hasMetacharacter(command: string): boolean {
  return SHELL_METACHARACTERS.some((char) => command.includes(char));
}

/**
 * The words of a single plain invocation (`program arg arg`), or null: anything the shell
 * would treat specially, a parse error, or a node that is not a plain or quoted word. Quotes are
 * removed, so `curl "-o" x` is read as the shell reads it.
 */
export function plainWords(command: string): string[] | null {
  if (!command.trim() || hasUnsafeCharacters(command) || hasMetacharacter(command)) return null;
  return parseShell(command, wordsOfTree);
}

function wordsOfTree(parsed: ParsedCommand): string[] | null {
  if (parsed.hasError) return null;
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
 * offered: anything but a single plain invocation, a program that is never widened, or a
 * command the entry would not itself cover (an option not known to be safe).
 */
export function programGrantFor(command: string, shell: GatePolicy['shell'] = 'posix'): string | null {
  if (shell === 'cmd') return null;
  const words = plainWords(command);
  const invocation = words && analyse(words);
  return words && invocation && !invocation.never && uncovered(words, invocation, invocation.subject.length) === null
    ? invocation.subject.join(' ')
    : null;
}

/** Whether `cwd` is the workspace or inside it (both real paths; the caller resolves them). */
export function insideWorkspace(cwd: string, workspace: string): boolean {
  const path = relative(workspace, cwd);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/** Paths every program may name: they are nobody's files. */
const HARMLESS_PATHS = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/**
 * The first path a word names outside the workspace, or null: an absolute path (alone, or after
 * `=` or `:` as in `of=/x` or `xml:/x`), a `file://` URL, or a relative path whose `..` climbs out
 * of it from `cwd`. Lexical: links inside the workspace are the person's own.
 */
export function pathOutside(words: readonly string[], cwd: string, workspace: string): string | null {
  for (const word of words) {
    const candidates: string[] = [];
    // A value may be stuck to a short option (`-f/etc/x`, `-S../x`): read both the word and what follows the option.
    const attached = /^-[A-Za-z0-9]+(.+)$/.exec(word)?.[1];
    for (const body of attached === undefined ? [word] : [word, attached]) candidates.push(...pathsNamed(body, cwd));
    for (const path of candidates) {
      const resolved = posix.resolve(cwd, path);
      if (!HARMLESS_PATHS.has(resolved) && !insideWorkspace(resolved, workspace)) return word;
    }
  }
  return null;
}

/** The paths one word may name: absolute ones (alone, or after `=`, `:` or `,`), a file URL's, and relative ones that climb. */
function pathsNamed(word: string, cwd: string): string[] {
  const candidates: string[] = [];
  const url = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/.exec(word);
  if (url) {
    if (url[1]!.toLowerCase() === 'file') candidates.push(url[2]!.replace(/^[^/]*/, ''));
  } else {
    for (const match of word.matchAll(/(?:^|[=:,])(\/[^,]*)/g)) candidates.push(match[1]!);
    const relativePart = word.replace(/^[^=]*=/, '');
    if (!relativePart.startsWith('/') && relativePart.split('/').includes('..'))
      candidates.push(posix.join(cwd, relativePart));
  }
  return candidates;
}

/** Decides whether a command may run without asking. `cwd` is where it would run (a real path). */
export function evaluateCommand(command: string, policy: GatePolicy, cwd?: string): GateDecision {
  if (!command.trim()) return ask('the command is empty');
  if (hasUnsafeCharacters(command)) return ask('the command contains control, format or non-ASCII characters');
  const outside =
    policy.workspace !== undefined && cwd !== undefined && !insideWorkspace(cwd, policy.workspace)
      ? `it would run in ${cwd}, outside the session's working folder ${policy.workspace}, where no grant or allowlist entry applies`
      : null;
  const allow = (reason: string): GateDecision => (outside ? ask(outside) : { decision: 'allow', reason });

  if (policy.exactGrants.includes(command)) return allow('allowed always (this exact command)');
  if (policy.shell === 'cmd')
    return ask('under cmd.exe only exact grants apply: its words do not mean what a POSIX shell makes of them');

  const words = plainWords(command);
  const invocation = words && analyse(words);
  // A grant's words may name a path; one outside the working folder asks, whatever covers the rest.
  const away =
    words && policy.workspace !== undefined && cwd !== undefined
      ? pathOutside(words.slice(1), cwd, policy.workspace)
      : null;
  const allowInside = (reason: string): GateDecision =>
    away ? ask(`${away} is outside the session's working folder ${policy.workspace}`) : allow(reason);
  let why: string | null = null;
  const entryName = policy.entryName ?? 'allowlist entry';
  for (const entry of policy.allowlist) {
    const verdict = allowlistVerdict(entry, command, words, invocation);
    if (verdict === true) return allowInside(`matches the ${entryName} "${entry}"`);
    if (typeof verdict === 'string') why ??= `the ${entryName} "${entry}" does not cover it: ${verdict}`;
  }

  if (policy.programGrants.length > 0 && words) {
    const grant = invocation?.subject.join(' ');
    if (invocation && grant !== undefined && policy.programGrants.includes(grant)) {
      if (invocation.never) return ask(invocation.never);
      const problem = uncovered(words, invocation, invocation.subject.length);
      if (problem === null) return allowInside(`covered by the grant "${grant}"`);
      why ??= `the grant "${grant}" does not cover it: ${problem}`;
    }
  } else if (policy.programGrants.length > 0) {
    why ??= 'not a single plain invocation, so no program-wide grant covers it';
  }
  return ask(why ?? (policy.entryName ? `no ${entryName} covers it` : 'no allowlist entry or grant covers it'));
}

/**
 * The operator's prefixes: the command must start with the entry's words, and every word after
 * them must be covered by the same rules as a program grant (options known to be safe for that
 * program, no shell machinery). An entry that is not plain words covers only itself, exactly.
 * True when covered; a reason when the entry matches but what follows is not covered; false when
 * the entry does not match at all.
 */
function allowlistVerdict(
  entry: string,
  command: string,
  words: string[] | null,
  invocation: Invocation | null,
): true | false | string {
  const trimmed = entry.trim();
  if (!trimmed) return false;
  if (command === trimmed) return true;
  const entryWords = plainWords(trimmed);
  if (!entryWords || !words || words.length < entryWords.length) return false;
  if (!entryWords.every((word, i) => words[i] === word)) return false;
  if (!invocation) return 'what follows the entry is not a plain name';
  // A part that is never granted program-wide is covered only when the entry names it itself.
  if (invocation.never && entryWords.length < invocation.subject.length) return invocation.never;
  return uncovered(words, invocation, Math.max(entryWords.length, invocation.subject.length)) ?? true;
}

function ask(reason: string): GateDecision {
  return { decision: 'ask', reason };
}
