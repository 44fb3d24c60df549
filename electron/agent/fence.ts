/**
 * Child output is data, never instructions. It reaches the model inside a fence, and any
 * fence marker inside the output is defanged (case-insensitively, on the decoded text,
 * every time: there is no "already fenced" shortcut), so output cannot close the fence
 * and pose as the user or the system.
 */
export const FENCE_TAG = 'untrusted-output';
const MARKER = new RegExp(`<(\\s*/?\\s*)(${FENCE_TAG})`, 'gi');

export function defang(text: string): string {
  // U+2039 looks like '<' to a reader but is not one to a parser.
  return text.replace(MARKER, '\u2039$1$2');
}

export function fence(text: string, source: string): string {
  return `<${FENCE_TAG} source="${source.replace(/[^A-Za-z0-9_.-]/g, '')}">\n${defang(text)}\n</${FENCE_TAG}>`;
}

/** Output the model may see inline; the newest part matters most (verdicts, final errors). */
export const INLINE_OUTPUT_MAX_CHARS = 30_000;

/** Keeps the newest `max` characters and says how much was cut and where the whole log lives. */
export function capOutput(text: string, logPath: string, max = INLINE_OUTPUT_MAX_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  return `[${cut} earlier characters cut; the full log is ${logPath}]\n${text.slice(cut)}`;
}
