/**
 * A sed script is a program: `e` runs a shell command, `w`/`W` write files, `r`/`R` read them
 * in, and `s///e`, `s///w` do the same from a substitution. This accepts only scripts made of
 * commands known to do neither: addresses, then one of `p d D q Q n N P h H g G x = l z`,
 * `s/…/…/` with flags from `g p i I m M 0-9`, `y/…/…/`, blocks `{ }` and `!`. Labels and
 * branches ask: where a label ends differs between seds (GNU ends it at a space), and a command
 * hidden after it would run.
 * Anything else, or anything it cannot read, is "not known to be safe".
 *
 * Today the gate refuses any command holding `; { } ! $ \ %` or a newline before a program's
 * table is read (gate.ts SHELL_METACHARACTERS), so scripts with blocks, negation, `$`, escapes or
 * several commands never reach this. It still reads them whole, so that the rule README states
 * holds on its own and stays right if that list is ever narrowed.
 */
const SIMPLE = new Set(['p', 'd', 'D', 'q', 'Q', 'n', 'N', 'P', 'h', 'H', 'g', 'G', 'x', '=', 'l', 'z', '{', '}']);
const SUBSTITUTE_FLAGS = /^[gpiImM0-9]*$/;

export function unsafeSedScript(script: string): string | null {
  let i = 0;
  const at = () => script[i];
  const skipBlanks = () => {
    while (i < script.length && /[ \t;\n]/.test(script[i]!)) i++;
  };
  /** Reads a delimited part (`/re/`, `\%re%`), honouring backslash escapes; returns false when unterminated. */
  const delimited = (delimiter: string): boolean => {
    while (i < script.length) {
      const char = script[i++]!;
      if (char === '\\') i++;
      else if (char === delimiter) return true;
      else if (char === '\n') return false;
    }
    return false;
  };
  const address = (): boolean => {
    const char = at();
    if (char === undefined) return true;
    if (/[0-9]/.test(char)) {
      while (/[0-9~]/.test(at() ?? '')) i++;
      return true;
    }
    if (char === '$') {
      i++;
      return true;
    }
    if (char === '/') {
      i++;
      if (!delimited('/')) return false;
      while (/[IM]/.test(at() ?? '')) i++;
      return true;
    }
    if (char === '\\') {
      const delimiter = script[i + 1];
      if (!delimiter || delimiter === '\n') return false;
      i += 2;
      if (!delimited(delimiter)) return false;
      while (/[IM]/.test(at() ?? '')) i++;
    }
    return true;
  };
  skipBlanks();
  while (i < script.length) {
    if (!address()) return 'the sed script has an address it cannot read';
    if (at() === ',') {
      i++;
      if (at() === '+' || at() === '~') i++;
      if (!address()) return 'the sed script has an address it cannot read';
    }
    while (at() === ' ' || at() === '!') i++;
    const command = at();
    if (command === undefined) break;
    i++;
    if (SIMPLE.has(command)) {
      // q and Q may carry an exit code.
      if (command === 'q' || command === 'Q') while (/[0-9 ]/.test(at() ?? '')) i++;
    } else if (command === 's' || command === 'y') {
      const delimiter = at();
      if (!delimiter || delimiter === '\n' || delimiter === '\\')
        return 'the sed script has a substitution it cannot read';
      i++;
      if (!delimited(delimiter) || !delimited(delimiter)) return 'the sed script has a substitution it cannot read';
      if (command === 's') {
        const start = i;
        while (i < script.length && !/[ \t;\n}]/.test(script[i]!)) i++;
        const flags = script.slice(start, i);
        if (!SUBSTITUTE_FLAGS.test(flags))
          return `the sed substitution flags "${flags}" may run a command or write a file (only g p i I m M and numbers are known to be safe)`;
      }
    } else {
      return `the sed command "${command}" is not known to be safe (e runs commands; r, R, w and W read or write files)`;
    }
    skipBlanks();
  }
  return null;
}
