/**
 * How a command line is shown wherever a person must see exactly what runs: the permission
 * dialog, tool rows, the tasks panel, the allowlist. Printable ASCII stays as it is; every
 * other character (control, format, bidi, look-alikes) is shown as an escape.
 */
export function visibleCommand(command: string): string {
  return command.replace(/[^\x20-\x7e]/g, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    if (char === '\t') return '\\t';
    const code = char.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** Printable ASCII only: anything else in a command always asks. */
export function hasUnsafeCharacters(command: string): boolean {
  return /[^\x20-\x7e]/.test(command);
}
