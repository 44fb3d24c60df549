import { constants } from 'node:os';

export interface ExitReport {
  exitCode: number | null;
  signal: string | null;
  note: string | null;
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number, name] as [number, string]),
);

/** Programs whose exit 1 is an answer, not an error: the note each gets. */
const CONVENTIONAL_ONE: readonly [RegExp, string][] = [
  [/^(grep|egrep|fgrep|rg|ag|ack|git\s+grep)$/, 'no matches found'],
  [/^(diff|cmp|git\s+diff)$/, 'files differ'],
  [/^(test|\[|\[\[)$/, 'condition is false'],
];

const CONVENTIONAL_NOTES = new Set(CONVENTIONAL_ONE.map(([, note]) => note));

/**
 * True when a failed exit is a conventional answer (grep's "no matches found"…): the row stays
 * `failed`, but the model is not told the command did not succeed.
 */
export function isConventionalResult(exit: { exitCode: number | null; exitNote: string | null }): boolean {
  return exit.exitCode === 1 && exit.exitNote !== null && CONVENTIONAL_NOTES.has(exit.exitNote);
}

/**
 * Reports an exit the way a shell would: a signal death is 128+N with the signal's
 * name (SIGKILL 137, SIGTERM 143), never 0; conventional codes carry their meaning.
 */
export function describeExit(command: string, exitCode: number | null, signal: number | string | null): ExitReport {
  const signalNumber =
    typeof signal === 'string' ? ((constants.signals as Record<string, number>)[signal] ?? null) : signal;
  if (signalNumber) {
    const name = SIGNAL_NAMES.get(signalNumber) ?? `SIG${signalNumber}`;
    return { exitCode: 128 + signalNumber, signal: name, note: `killed by ${name}` };
  }
  if (exitCode !== null && exitCode > 128 && exitCode < 128 + 65 && SIGNAL_NAMES.has(exitCode - 128)) {
    // The shell reports its child's signal death this way; name it.
    const name = SIGNAL_NAMES.get(exitCode - 128)!;
    return { exitCode, signal: name, note: `killed by ${name}` };
  }
  return { exitCode, signal: null, note: exitCode === null ? null : noteFor(command, exitCode) };
}

function noteFor(command: string, exitCode: number): string | null {
  if (exitCode === 127) return 'command not found';
  if (exitCode === 126) return 'command found but not executable (permission denied)';
  if (exitCode !== 1) return null;
  const program = lastProgram(command);
  if (!program) return null;
  for (const [pattern, meaning] of CONVENTIONAL_ONE) if (pattern.test(program)) return meaning;
  return null;
}

/**
 * The program whose status the shell returns, or null when that is not certain. The list's last
 * command decides the status, and within it the last stage of its pipeline (`sh -c` sets no
 * pipefail). We trust it after `;`, `||` or a newline (it ran, and its status is the list's), but
 * not after `&&`: there an exit 1 may be the earlier command's (`cd missing && grep x` fails in
 * `cd`), so no meaning is claimed. Quotes and escapes are honoured, so `rg 'a|b'` is one stage;
 * subshells, groups and substitutions are not parsed and get no meaning.
 */
export function lastProgram(command: string): string | null {
  const segments: { text: string; after: string }[] = [{ text: '', after: '' }];
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    const current = segments.at(-1)!;
    if (quote) {
      if (char === quote) quote = null;
      else current.text += char === '\\' && quote === '"' ? (command[++i] ?? '') : char;
      continue;
    }
    const redirect = char === '&' && (/[<>]/.test(command[i - 1] ?? '') || command[i + 1] === '>');
    if (char === "'" || char === '"') quote = char;
    else if (char === '\\') current.text += command[++i] ?? '';
    else if ('(){}`'.includes(char) || (char === '$' && command[i + 1] === '(')) return null;
    else if (!redirect && (char === ';' || char === '\n' || char === '&' || char === '|')) {
      const pair = command.slice(i, i + 2);
      const operator = pair === '&&' || pair === '||' ? pair : char;
      i += operator.length - 1;
      segments.push({ text: '', after: operator });
    } else current.text += char;
  }
  if (quote) return null;
  const filled = segments.filter((segment, index) => segment.text.trim() || index === 0);
  let last = filled.length - 1;
  while (last > 0 && filled[last]!.after === '|') last--;
  if (filled[last]!.after === '&&') return null;
  const words = filled
    .at(-1)!
    .text.trim()
    .split(/\s+/)
    .filter((word) => word && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  const first = words[0]?.replace(/^.*\//, '');
  if (!first) return null;
  if ((first === 'git' || first === 'command') && words[1])
    return first === 'git' ? `git ${words[1]}` : words[1]!.replace(/^.*\//, '');
  return first;
}
