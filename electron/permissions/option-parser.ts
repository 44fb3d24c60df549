/**
 * Options the way programs parse them, for an allow-list: an option is covered only when the
 * program's table lists it as safe, spelled exactly (an abbreviation of a long option might be
 * the prefix of a dangerous one, so it asks), with the value the table allows.
 */

/** One safe option. `short` is one character (`o` for `-o`), `long` the name after `--`; one or both. */
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
 * `--name=2` two following words. `-o|--output=` is one option with both spellings, so a check
 * given to either applies to both. Checks are attached by spelling (`-o` or `--output`); one that
 * names no option in the text is an error, so a typo cannot leave an option unchecked.
 */
export function options(text: string, checks: Readonly<Record<string, ValueCheck>> = {}): OptionSpec[] {
  const unused = new Set(Object.keys(checks));
  const specs = text
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => {
      const match = /^([^=?]+)(=2|=|\?)?$/.exec(token);
      if (!match) throw new Error(`bad option spec "${token}"`);
      const [, spellings, kind] = match as unknown as [string, string, string | undefined];
      const value: OptionSpec['value'] =
        kind === '=2' ? 2 : kind === '=' ? 'required' : kind === '?' ? 'optional' : 'none';
      const spec: OptionSpec = { value };
      for (const spelling of spellings.split('|')) {
        if (spelling.startsWith('--') && spelling.length > 2 && !spec.long) spec.long = spelling.slice(2);
        else if (/^-[^-]$/.test(spelling) && !spec.short) spec.short = spelling.slice(1);
        else throw new Error(`bad option spec "${token}": "${spelling}" is not one short and one long spelling`);
        const check = checks[spelling];
        if (check && spec.check && spec.check !== check)
          throw new Error(`option spec "${token}" has two different checks`);
        if (check) spec.check = check;
        unused.delete(spelling);
      }
      return spec;
    });
  if (unused.size > 0) throw new Error(`checks for options that are not in the table: ${[...unused].join(', ')}`);
  return specs;
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
    if (separate && value.startsWith('-') && value !== '-')
      return `${name(option)} would take ${value} as its value, which a program may read as an option`;
    if (option.check && !option.check.allows(value))
      return `${name(option)} ${JSON.stringify(value)} is not a value known to be safe`;
    const key = name(option);
    values.set(key, [...(values.get(key) ?? []), value]);
    return null;
  };
  // The value (or two) an option takes from the words after the one at `i`: the index of its last word, or why not.
  const following = (option: OptionSpec, label: string, i: number): number | ArgumentProblem => {
    if (option.value === 2) {
      if (i + 2 >= args.length) return { at: i, reason: `${label} needs two values` };
      if (args[i + 1]!.startsWith('-') || args[i + 2]!.startsWith('-'))
        return { at: i, reason: `${label} would take an option as its value` };
      return i + 2;
    }
    if (i + 1 >= args.length) return { at: i, reason: `${label} needs a value` };
    const problem = take(option, args[i + 1]!, true);
    return problem ? { at: i + 1, reason: problem } : i + 1;
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
      if (!spec.afterDoubleDash) return fail(i, '-- is not known to be safe here');
      if (spec.afterDoubleDash === 'handed-on') {
        // What follows goes to another program this table knows nothing of: operands only.
        const rest = args.slice(i + 1);
        const option = rest.findIndex((arg) => arg.startsWith('-'));
        if (option >= 0)
          return fail(
            i + 1 + option,
            `${rest[option]} is handed on to another program, whose options are not known to be safe`,
          );
      }
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
      } else if (option.value === 'required' || option.value === 2) {
        const next = following(option, word, i);
        if (typeof next !== 'number') return { problem: next, positionals, values };
        i = next;
      }
      continue;
    }
    // A cluster of short options: each letter (or digit) checked; one that takes a value takes the rest, or the next word.
    for (let c = 1; c < word.length; c++) {
      const letter = word[c]!;
      const option = spec.options.find((o) => o.short === letter);
      if (!option)
        return fail(i, `-${letter}${word.length > 2 ? ` (in ${word})` : ''} is not an option known to be safe`);
      if (option.value === 'none') continue;
      const attached = word.slice(c + 1);
      if (attached !== '') {
        const problem = take(option, attached, false);
        if (problem) return fail(i, problem);
      } else if (option.value !== 'optional') {
        const next = following(option, `-${letter}`, i);
        if (typeof next !== 'number') return { problem: next, positionals, values };
        i = next;
      }
      break;
    }
  }
  const problem = spec.positionals?.(positionals, values) ?? null;
  return { problem: problem ? { at: -1, reason: problem } : null, positionals, values };
}

/** How an option is named in messages and in `values`: `--name` when it has one, else `-x`. */
export function name(option: OptionSpec): string {
  return option.long ? `--${option.long}` : `-${option.short}`;
}

/** Every spelling of an option, as README lists it: `-o/--output`. */
export function spellings(option: OptionSpec): string {
  return [option.short === undefined ? null : `-${option.short}`, option.long === undefined ? null : `--${option.long}`]
    .filter(Boolean)
    .join('/');
}

/** The rule for programs with no table: positional words only; any option asks. */
export const POSITIONAL_ONLY: ProgramSpec = { options: [] };

/** What follows a project's script name: operands for the script (after `--` too); its options are unknown, so they ask. */
export const SCRIPT_ARGUMENTS: ProgramSpec = { options: [], afterDoubleDash: 'handed-on' };
