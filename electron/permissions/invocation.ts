import { parseArguments, POSITIONAL_ONLY, SCRIPT_ARGUMENTS, type ProgramSpec } from './option-parser.js';
import {
  baseName,
  DIRECT_RUNNERS,
  MULTIPLEXERS,
  neverWidened,
  PROGRAMS,
  PYTHON_MODULES,
  PYTHONS,
  RUNNER_OTHERS,
  RUNNERS,
} from './programs.js';

/** What a program grant would be about, and how the words after it are judged. */
export interface Invocation {
  /** The words that say what runs: `curl`; `git status`; `npm run build`; `uv run pytest`; `python -m pytest`. A grant stores exactly these. */
  subject: string[];
  /** How the words after the subject are read. */
  spec: ProgramSpec;
  /** Why it may never be granted program-wide (a shell, `git config`, `uv run bash`), or null. */
  never: string | null;
}

/** A word that can only be a name: no option, no path tricks. */
export function isPlainName(word: string | undefined): word is string {
  return word !== undefined && word.length > 0 && !word.startsWith('-') && /^[A-Za-z0-9@._:/+=,-]+$/.test(word);
}

/** The table of a program run by a runner (`uv run pytest -x` reads `-x` with pytest's table). */
function tableOf(program: string): ProgramSpec {
  return PROGRAMS[baseName(program)] ?? SCRIPT_ARGUMENTS;
}

/**
 * Reads a plain invocation: what it runs, and how its remaining words are judged. Null when its
 * selecting word (a subcommand, a script, a module) is missing or is not a plain name.
 */
export function analyse(words: readonly string[]): Invocation | null {
  const [program, first, second] = words;
  if (!program) return null;
  const name = baseName(program);
  if ((PYTHONS.has(name) || /^python[0-9][0-9.]*$/.test(name)) && first === '-m') {
    if (!isPlainName(second)) return null;
    const spec = PYTHON_MODULES[second];
    const never = spec
      ? null
      : `python -m ${second} runs a module Drover has no rule for; only known test and lint modules are granted program-wide`;
    return { subject: [program, '-m', second], spec: spec ?? SCRIPT_ARGUMENTS, never };
  }
  // Aliases first: `npm rum build` is `npm run build`, and keeps its script like it.
  const verb = first === undefined ? undefined : (MULTIPLEXERS[name]?.aliases?.[first] ?? first);
  const runner = verb === undefined ? undefined : RUNNERS[name]?.[verb];
  if (runner) {
    if (!isPlainName(second)) return null;
    const manager = MULTIPLEXERS[name];
    if (runner === 'script') {
      const spec = manager?.others ?? manager?.subcommands.run ?? SCRIPT_ARGUMENTS;
      return { subject: [program, first!, second], spec, never: null };
    }
    return { subject: [program, first!, second], spec: tableOf(second), never: neverWidened(second) };
  }
  if (DIRECT_RUNNERS.has(name)) {
    if (!isPlainName(first)) return null;
    return { subject: [program, first], spec: tableOf(first), never: neverWidened(first) };
  }
  // A runner's other subcommands select what happens, like a multiplexer's (`uv sync`, `poetry add`);
  // a runtime's (`bun x.ts`, `deno eval`) run code and are never widened.
  const multiplexer = MULTIPLEXERS[name] ?? (RUNNERS[name] && !neverWidened(program) ? RUNNER_OTHERS : undefined);
  if (multiplexer) {
    if (!isPlainName(first)) return null;
    const subcommand = multiplexer.aliases?.[first] ?? first;
    const never = multiplexer.never[subcommand];
    const spec = multiplexer.subcommands[subcommand] ?? multiplexer.others;
    if (never)
      return {
        subject: [program, first],
        spec: spec ?? POSITIONAL_ONLY,
        never: `${name} ${subcommand} is never granted program-wide: ${never}`,
      };
    if (spec) return { subject: [program, first], spec, never: null };
    // A subcommand Drover has no table for may itself select what happens (`gh auth token`, `docker
    // container cp`): the grant keeps every word up to the first option, and options ask.
    const verbs = words.slice(1).findIndex((word) => word.startsWith('-'));
    const subject = verbs < 0 ? [...words] : words.slice(0, verbs + 1);
    return { subject, spec: POSITIONAL_ONLY, never: null };
  }
  return { subject: [program], spec: PROGRAMS[name] ?? POSITIONAL_ONLY, never: neverWidened(program) };
}

/** Why the words from `from` on are not covered (an option not known to be safe, unsafe content), or null. */
export function uncovered(words: readonly string[], invocation: Invocation, from: number): string | null {
  const rest = words.slice(from);
  const problem = parseArguments(invocation.spec, rest).problem;
  if (!problem) return null;
  const table =
    invocation.spec === POSITIONAL_ONLY || invocation.spec === SCRIPT_ARGUMENTS
      ? ' (Drover has no table of its safe options, so any option asks)'
      : '';
  return `${problem.reason}${table}`;
}
