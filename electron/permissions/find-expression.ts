import type { ArgumentProblem } from './option-parser.js';

/**
 * find's arguments are a language: paths, then an expression of tests and actions. Its actions
 * run programs (`-exec`, `-execdir`, `-ok`, `-okdir`), delete (`-delete`) or write files
 * (`-fprint`, `-fprint0`, `-fprintf`, `-fls`). Only the primaries below, each with the number
 * of words it takes, are known to be safe; anything else asks.
 */
export const FIND_PRIMARIES: Readonly<Record<string, number>> = {
  // options and positional options
  '-depth': 0,
  '-maxdepth': 1,
  '-mindepth': 1,
  '-mount': 0,
  '-xdev': 0,
  '-noleaf': 0,
  '-follow': 0,
  '-daystart': 0,
  '-ignore_readdir_race': 0,
  '-noignore_readdir_race': 0,
  '-regextype': 1,
  '-warn': 0,
  '-nowarn': 0,
  // tests
  '-name': 1,
  '-iname': 1,
  '-path': 1,
  '-ipath': 1,
  '-wholename': 1,
  '-iwholename': 1,
  '-lname': 1,
  '-ilname': 1,
  '-regex': 1,
  '-iregex': 1,
  '-type': 1,
  '-xtype': 1,
  '-size': 1,
  '-empty': 0,
  '-newer': 1,
  '-anewer': 1,
  '-cnewer': 1,
  '-mtime': 1,
  '-mmin': 1,
  '-atime': 1,
  '-amin': 1,
  '-ctime': 1,
  '-cmin': 1,
  '-used': 1,
  '-user': 1,
  '-group': 1,
  '-uid': 1,
  '-gid': 1,
  '-nouser': 0,
  '-nogroup': 0,
  '-perm': 1,
  '-links': 1,
  '-inum': 1,
  '-samefile': 1,
  '-readable': 0,
  '-writable': 0,
  '-executable': 0,
  '-fstype': 1,
  '-true': 0,
  '-false': 0,
  // operators
  '-not': 0,
  '-a': 0,
  '-and': 0,
  '-o': 0,
  '-or': 0,
  // actions that only print
  '-print': 0,
  '-print0': 0,
  '-printf': 1,
  '-ls': 0,
  '-prune': 0,
  '-quit': 0,
};

/** Options find takes before its paths. */
const LEADING = new Set(['-H', '-L', '-P']);

export function checkFindArguments(args: readonly string[]): ArgumentProblem | null {
  let expression = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!expression && LEADING.has(word)) continue;
    if (!word.startsWith('-') || word === '-') {
      // A path before the expression; after it, only the words a primary takes (counted below) are operands.
      if (expression) return { at: i, reason: `${word} is not part of a find expression known to be safe` };
      continue;
    }
    expression = true;
    const arity = FIND_PRIMARIES[word];
    if (arity === undefined)
      return {
        at: i,
        reason: `${word} is not a find primary known to be safe (-exec, -ok, -delete and -fprint run or write)`,
      };
    if (arity > 0 && i + arity >= args.length) return { at: i, reason: `${word} needs a value` };
    i += arity;
  }
  return null;
}
