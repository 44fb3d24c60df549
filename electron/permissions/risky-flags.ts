/**
 * Flags that make a program execute something else, or write, on the command's behalf. A
 * program-wide grant never covers a command that uses one; the person is asked again. This
 * table is the one place that says which they are (README documents it).
 */
export const RISKY_FLAGS: Readonly<Record<string, { long: readonly string[]; short: readonly string[]; words?: readonly string[] }>> = {
  find: { long: [], short: [], words: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'] },
  rg: { long: ['--pre'], short: [] },
  sed: { long: ['--in-place'], short: ['i'] },
  git: { long: ['--output', '--open-files-in-pager', '--exec-path', '--paginate', '--upload-pack', '--receive-pack', '--config-env'], short: ['c', 'O', 'p'] },
  curl: { long: ['--upload-file', '--config', '--output', '--remote-name', '--remote-name-all', '--output-dir'], short: ['T', 'K', 'o', 'O'] },
};

/** Does this argument list use a flag from the table for this program? */
export function usesRiskyFlag(program: string, args: readonly string[]): string | null {
  const entry = RISKY_FLAGS[baseName(program)];
  if (!entry) return null;
  for (const arg of args) {
    if (entry.words?.includes(arg)) return arg;
    for (const flag of entry.long) if (arg === flag || arg.startsWith(`${flag}=`)) return flag;
    // Short flags may be clustered (-sSo) or carry their value attached (-ofile, -i.bak).
    if (/^-[A-Za-z]/.test(arg) && !arg.startsWith('--')) {
      for (const letter of arg.slice(1)) {
        if (entry.short.includes(letter)) return `-${letter}`;
        if (!/[A-Za-z]/.test(letter)) break;
      }
    }
  }
  return null;
}

export function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}
