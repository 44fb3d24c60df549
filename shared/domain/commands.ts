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

/** A run of text shown as it is, or one character shown as a token (`⟨ESC⟩`, `⟨U+202E⟩`). */
export type CommandToken = { text: string } | { escape: string; code: number };

/**
 * Which characters become tokens:
 * - `command`: everything outside printable ASCII, as the gate sees it (the permission dialog, tool rows, task headers).
 * - `inline`: control, format (bidi included), separator, private-use, unassigned and surrogate code points,
 *   spaces other than U+0020, and the token brackets ⟨ ⟩ themselves; other Unicode text stays (argument values).
 * - `text`: as `inline`, but LF, CR LF and TAB stay as the text's layout (a tool's result, a task's output).
 * - `prose`: only control and bidi characters, LF and TAB staying (the model's own words).
 */
export type TokenMode = 'command' | 'inline' | 'text' | 'prose';

const BIDI_CONTROLS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const UNUSUAL = `\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}\\u27e8\\u27e9`;
const TOKEN_PATTERNS: Record<TokenMode, RegExp> = {
  command: /[^\x20-\x7e]/gu,
  inline: new RegExp(`[${UNUSUAL}]|(?! )\\p{Zs}`, 'gu'),
  text: new RegExp(`\\r\\n|(?![\\n\\t])[${UNUSUAL}]|(?! )\\p{Zs}`, 'gu'),
  prose: new RegExp(`\\r\\n|(?![\\n\\t])[\\p{Cc}${BIDI_CONTROLS}\\u2028\\u2029]`, 'gu'),
};

const C0_LABELS = [
  'NUL',
  'SOH',
  'STX',
  'ETX',
  'EOT',
  'ENQ',
  'ACK',
  'BEL',
  'BS',
  'TAB',
  'LF',
  'VT',
  'FF',
  'CR',
  'SO',
  'SI',
  'DLE',
  'DC1',
  'DC2',
  'DC3',
  'DC4',
  'NAK',
  'SYN',
  'ETB',
  'CAN',
  'EM',
  'SUB',
  'ESC',
  'FS',
  'GS',
  'RS',
  'US',
];

/**
 * The command (or text) cut into plain runs and tokens, so a real escape character and the
 * four characters `\x1b` a model typed never look alike: a real one is a token, literal
 * backslashes stay text. Joining the plain runs and the tokens' characters gives back the input
 * (where CR LF is layout, it reads as LF).
 */
export function commandTokens(command: string, mode: TokenMode = 'command'): CommandToken[] {
  const tokens: CommandToken[] = [];
  const pattern = TOKEN_PATTERNS[mode];
  let plain = '';
  let at = 0;
  for (const match of command.matchAll(pattern)) {
    plain += command.slice(at, match.index);
    at = match.index + match[0].length;
    if (match[0] === '\r\n') {
      plain += '\n';
      continue;
    }
    if (plain !== '') tokens.push({ text: plain });
    plain = '';
    const code = match[0].codePointAt(0) ?? 0;
    tokens.push({ escape: escapeLabel(code), code });
  }
  plain += command.slice(at);
  if (plain !== '') tokens.push({ text: plain });
  return tokens;
}

/** `U+202E`: how Unicode names a code point. */
function codePointName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `ESC`, `LF`, `DEL` for ASCII controls; `U+202E` for everything else. */
function escapeLabel(code: number): string {
  if (code < 0x20) return C0_LABELS[code]!;
  if (code === 0x7f) return 'DEL';
  return codePointName(code);
}

const CHARACTER_NAMES: Readonly<Record<number, string>> = {
  0x00: 'null',
  0x07: 'bell',
  0x08: 'backspace',
  0x09: 'tab',
  0x0a: 'line feed (newline)',
  0x0b: 'vertical tab',
  0x0c: 'form feed',
  0x0d: 'carriage return',
  0x1b: 'escape',
  0x7f: 'delete',
  0x85: 'next line',
  0x9b: 'control sequence introducer',
  0xa0: 'no-break space',
  0xad: 'soft hyphen',
  0x061c: 'Arabic letter mark',
  0x200b: 'zero width space',
  0x200c: 'zero width non-joiner',
  0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x27e8: 'left angle bracket',
  0x27e9: 'right angle bracket',
  0xfeff: 'zero width no-break space (byte order mark)',
};

/** A token's name for people: "escape, U+001B", "right-to-left override, U+202E". */
export function characterName(code: number): string {
  const hex = codePointName(code);
  const char = String.fromCodePoint(code);
  const name =
    CHARACTER_NAMES[code] ??
    (/\p{Cc}/u.test(char)
      ? 'control character'
      : /\p{Cf}/u.test(char)
        ? 'format character'
        : /\p{Zs}/u.test(char)
          ? 'space character'
          : /[\p{Cs}\p{Co}\p{Cn}]/u.test(char)
            ? 'unassigned or private character'
            : /[\p{L}\p{N}\p{P}\p{S}]/u.test(char)
              ? `“${char}”, outside printable ASCII`
              : 'character outside printable ASCII');
  return `${name}, ${hex}`;
}
