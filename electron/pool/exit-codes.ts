import { constants } from 'node:os';

export interface ExitReport {
  exitCode: number | null;
  signal: string | null;
  note: string | null;
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number, name] as [number, string]),
);

/** Programs whose exit 1 is an answer, not an error. */
const CONVENTIONAL_ONE: readonly [RegExp, string][] = [
  [/^(grep|egrep|fgrep|rg|ag|ack|git\s+grep)$/, 'no matches found'],
  [/^(diff|cmp|git\s+diff)$/, 'files differ'],
  [/^(test|\[|\[\[)$/, 'condition is false'],
];

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

/** The program whose status the shell returns: the last stage of a simple pipeline, sans env assignments. */
function lastProgram(command: string): string | null {
  const stage =
    command
      .split(/\|(?!\|)/)
      .at(-1)
      ?.trim() ?? '';
  if (/[;&]|\|\|/.test(stage)) return null;
  const words = stage.split(/\s+/).filter((word) => word && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  const first = words[0]?.replace(/^.*\//, '');
  if (!first) return null;
  if ((first === 'git' || first === 'command') && words[1])
    return first === 'git' ? `git ${words[1]}` : words[1]!.replace(/^.*\//, '');
  return first;
}
