import xtermHeadless from '@xterm/headless';

// @xterm/headless 6 ships CommonJS; its named exports are only reachable through the default.
const { Terminal } = xtermHeadless;

/** Wide enough that ordinary logs do not wrap; the pty is given the same width. */
export const TERMINAL_COLUMNS = 160;
export const TERMINAL_ROWS = 40;

/**
 * Plays raw terminal output through a real emulator and returns the lines a person would
 * see: colours and cursor moves resolved, `\r` progress redraws collapsed to their final
 * state, wrapped lines joined. A sequence split anywhere is fine: the emulator's parser is
 * a stream. Nothing here touches the stored bytes.
 */
export async function renderTerminalText(
  bytes: Uint8Array,
  options: { cols?: number; truncated?: boolean } = {},
): Promise<string> {
  if (bytes.length === 0) return '';
  let input = bytes;
  if (options.truncated) {
    // The window may begin inside a line or an escape sequence: start at the next line.
    const newline = input.indexOf(0x0a);
    if (newline >= 0 && newline < input.length - 1) input = input.subarray(newline + 1);
  }
  const cols = options.cols ?? TERMINAL_COLUMNS;
  // Enough rows for every line, wrapped ones included (escape bytes only make this generous).
  const rowsNeeded = countNewlines(input) + Math.ceil(input.length / cols) + 2;
  const terminal = new Terminal({
    cols,
    rows: TERMINAL_ROWS,
    scrollback: rowsNeeded + TERMINAL_ROWS,
    allowProposedApi: true,
    // Logs hold the program's own LF line ends (the terminal's CR LF translation is off); a bare LF
    // still starts a new line, as it does on the terminal the program thought it had.
    convertEol: true,
  });
  try {
    // Bytes that are not UTF-8 show as U+FFFD rather than vanishing.
    const text = new TextDecoder('utf-8', { fatal: false }).decode(input);
    await new Promise<void>((resolve) => terminal.write(text, resolve));
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i);
      if (!line) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  } finally {
    terminal.dispose();
  }
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  let at = bytes.indexOf(0x0a);
  while (at !== -1) {
    count++;
    at = bytes.indexOf(0x0a, at + 1);
  }
  return count;
}
