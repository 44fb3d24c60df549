/**
 * Options the way programs parse them, for an allow-list: an option is covered only when the
 * program's table lists it as safe, spelled exactly (an abbreviation of a long option might be
 * the prefix of a dangerous one, so it asks), with the value the table allows.
 */

/** One safe option. `short` is one character (`o` for `-o`), `long` the name after `--`. */
export interface OptionSpec {
  short?: string;
  long?: string;
  /** none: a flag; required: the next word or an attached value; optional: attached only (`--color=auto`, `-j4`); 2: two following words (`jq --arg name value`). */
  value: 'none' | 'required' | 'optional' | 2;
  /** A value is safe only when this says so (`curl -o -` writes to the terminal, any other path writes a file). */
  check?: ValueCheck;
}

/** Which values of an option are known to be safe, and that rule in words (README shows it). */
export interface ValueCheck {
  allows: (value: string) => boolean;
  note: string;
}

/** How a program's arguments are read, and which of them are known to be safe. */
export interface ProgramSpec {
  /** Shown in README beside the program: what the table covers. */
  summary?: string;
  options: readonly OptionSpec[];
  /** getopt: `-abc` clusters, `--long[=v]`; go: `-name[=v]` or `--name[=v]`, one option per word. */
  style?: 'getopt' | 'go';
  /** `head -5`, `git log -3`: a dash and digits is a count. */
  numberOption?: boolean;
  /** Options end at the first operand (`docker run IMAGE CMD -x`: the rest is the container's own command). */
  stopAtFirstOperand?: boolean;
  /** What follows `--`: plain operands, or arguments handed to another program (checked as positional only). */
  afterDoubleDash?: 'operands' | 'handed-on';
  /** Checks the positional words (a sed script, make variables); null when they are fine, else why it asks. */
  positionals?: (words: readonly string[], values: ReadonlyMap<string, readonly string[]>) => string | null;
  /** Reads the whole argument list itself (find's expression language); replaces option parsing. */
  custom?: (args: readonly string[]) => ArgumentProblem | null;
}

export interface ArgumentProblem {
  /** Index into the argument list of the word at fault, or -1 when it is about the whole. */
  at: number;
  reason: string;
}

/**
 * Parses a compact description: words separated by spaces; `-x` a flag, `-x=` an option that
 * takes a value, `--name` a flag, `--name=` a valued option, `--name?` an optional attached value,
 * `--name=2` two following words. Checks are attached by name afterwards.
 */
export function options(text: string, checks: Readonly<Record<string, ValueCheck>> = {}): OptionSpec[] {
  return text
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => {
      const match = /^(--?)([^=?]+)(=2|=|\?)?$/.exec(token);
      if (!match) throw new Error(`bad option spec "${token}"`);
      const [, dashes, name, kind] = match as unknown as [string, string, string, string | undefined];
      const value: OptionSpec['value'] = kind === '=2' ? 2 : kind === '=' ? 'required' : kind === '?' ? 'optional' : 'none';
      const spec: OptionSpec = dashes === '--' ? { long: name, value } : { short: name, value };
      if (dashes === '-' && name.length !== 1) throw new Error(`short option "${token}" must be one character`);
      const check = checks[token.replace(/(=2|=|\?)$/, '')];
      if (check) spec.check = check;
      return spec;
    });
}

export interface ParsedArguments {
  problem: ArgumentProblem | null;
  positionals: string[];
  /** Values given to each option, by its spelling in the table (`-e`, `--expression`). */
  values: Map<string, string[]>;
}

/** Reads `args` against the table; the first word that is not known to be safe is the problem. */
export function parseArguments(spec: ProgramSpec, args: readonly string[]): ParsedArguments {
  const positionals: string[] = [];
  const values = new Map<string, string[]>();
  const fail = (at: number, reason: string): ParsedArguments => ({ problem: { at, reason }, positionals, values });
  if (spec.custom) return { problem: spec.custom(args), positionals, values };
  const take = (option: OptionSpec, value: string, separate: boolean): string | null => {
    // A program whose option takes its value optionally (or not at all) reads the next word as an option:
    // `git diff -U --output=x`, `npm test --color --script-shell=x`. That word is never taken as a value here.
    if (separate && value.startsWith('-') && value !== '-') return `${name(option)} would take ${value} as its value, which a program may read as an option`;
    if (option.check && !option.check.allows(value)) return `${name(option)} ${JSON.stringify(value)} is not a value known to be safe`;
    const key = name(option);
    values.set(key, [...(values.get(key) ?? []), value]);
    return null;
  };
  let handedOn = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (handedOn || word === '-' || !word.startsWith('-')) {
      positionals.push(word);
      if (spec.stopAtFirstOperand) handedOn = true;
      continue;
    }
    if (word === '--') {
      if (spec.afterDoubleDash === 'handed-on') {
        // What follows goes to another program this table knows nothing of: operands only.
        const rest = args.slice(i + 1);
        const option = rest.findIndex((arg) => arg.startsWith('-'));
        if (option >= 0) return fail(i + 1 + option, `${rest[option]} is handed on to another program, whose options are not known to be safe`);
      }
      if (spec.afterDoubleDash !== 'operands' && spec.afterDoubleDash !== 'handed-on') return fail(i, '-- is not known to be safe here');
      handedOn = true;
      continue;
    }
    if (spec.numberOption && /^-\d+$/.test(word)) continue;
    const longForm = word.startsWith('--') || spec.style === 'go';
    if (longForm) {
      const body = word.replace(/^--?/, '');
      const eq = body.indexOf('=');
      const optionName = eq >= 0 ? body.slice(0, eq) : body;
      const option = spec.options.find((o) => o.long === optionName || (spec.style === 'go' && o.short === optionName));
      if (!option) return fail(i, `${word.split('=')[0]} is not an option known to be safe`);
      if (eq >= 0) {
        if (option.value === 'none' || option.value === 2) return fail(i, `${optionName} takes no value here`);
        const problem = take(option, body.slice(eq + 1), false);
        if (problem) return fail(i, problem);
      } else if (option.value === 'required') {
        if (i + 1 >= args.length) return fail(i, `${word} needs a value`);
        const problem = take(option, args[++i]!, true);
        if (problem) return fail(i, problem);
      } else if (option.value === 2) {
        if (i + 2 >= args.length) return fail(i, `${word} needs two values`);
        if (args[i + 1]!.startsWith('-') || args[i + 2]!.startsWith('-')) return fail(i, `${word} would take an option as its value`);
        i += 2;
      }
      continue;
    }
    // A cluster of short options: each letter (or digit) checked; one that takes a value takes the rest, or the next word.
    for (let c = 1; c < word.length; c++) {
      const letter = word[c]!;
      const option = spec.options.find((o) => o.short === letter);
      if (!option) return fail(i, `-${letter}${word.length > 2 ? ` (in ${word})` : ''} is not an option known to be safe`);
      if (option.value === 'none') continue;
      const attached = word.slice(c + 1);
      if (option.value === 'optional' || attached !== '') {
        if (attached !== '' || option.value !== 'optional') {
          const problem = take(option, attached, false);
          if (problem) return fail(i, problem);
        }
        break;
      }
      if (option.value === 2) {
        if (i + 2 >= args.length) return fail(i, `-${letter} needs two values`);
        if (args[i + 1]!.startsWith('-') || args[i + 2]!.startsWith('-')) return fail(i, `-${letter} would take an option as its value`);
        i += 2;
        break;
      }
      if (i + 1 >= args.length) return fail(i, `-${letter} needs a value`);
      const problem = take(option, args[++i]!, true);
      if (problem) return fail(i, problem);
      break;
    }
  }
  const problem = spec.positionals?.(positionals, values) ?? null;
  return { problem: problem ? { at: -1, reason: problem } : null, positionals, values };
}

/** How an option is written in its table: `-x` or `--name`. */
export function name(option: OptionSpec): string {
  return option.long ? `--${option.long}` : `-${option.short}`;
}

/** The rule for programs with no table: positional words only; any option asks. */
export const POSITIONAL_ONLY: ProgramSpec = { options: [] };

/** What follows a project's script name: operands for the script (after `--` too); its options are unknown, so they ask. */
export const SCRIPT_ARGUMENTS: ProgramSpec = { options: [], afterDoubleDash: 'handed-on' };
