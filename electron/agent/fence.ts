import { randomBytes } from 'node:crypto';
import { FENCE_TAG, findHazards } from './fence-hazards.js';
import { matchingCopy } from './fence-normalise.js';

/**
 * Child output is data, never instructions. It reaches the model inside a fence whose markers
 * carry a random nonce, new for every read, so output cannot guess the real closing marker.
 * Inside, every look-alike of a marker, every chat-template token, every harness tag and every
 * role name that starts a line is neutralised, and every invisible character is shown escaped.
 * Look-alikes are found on a normalised copy (fence-normalise.ts: compatibility forms folded,
 * invisible characters dropped, confusables mapped by UTS #39), case-insensitively, every time:
 * there is no "already fenced" shortcut. What counts as a hazard is in fence-hazards.ts. The text
 * sent keeps the program's own characters everywhere else. Pure functions; the log reading lives
 * in tools.ts.
 */
/** 80 bits: far beyond guessing, and output never sees the nonce before it is chosen. */
const NONCE_BYTES = 10;

// What the fence matches and how it normalises live beside it; callers import this module only.
export {
  FENCE_TAG,
  HARNESS_TAG_NAMES,
  MARKER_PLACEHOLDER,
  NONCE_PLACEHOLDER,
  ROLE_LINE_MARKER,
  findHazards,
  tagPlaceholder,
} from './fence-hazards.js';
export { matchingCopy } from './fence-normalise.js';

function newFenceNonce(): string {
  return randomBytes(NONCE_BYTES).toString('hex');
}

/** The fence around one read of a task's output; `nonce` is fresh unless a test pins it. */
export function fence(text: string, source: string, nonce = newFenceNonce()): string {
  const name = source.replace(/[^A-Za-z0-9_.-]/g, '');
  return `${openingMarker(nonce, name)}\n${defang(text, nonce)}\n${closingMarker(nonce)}`;
}

export function openingMarker(nonce: string, source: string): string {
  return `<${FENCE_TAG} nonce="${nonce}" source="${source}">`;
}

export function closingMarker(nonce: string): string {
  return `</${FENCE_TAG} nonce="${nonce}">`;
}

/**
 * The body of a fence: for each hazard found on the normalised copy, the span of the original
 * text it came from is replaced by a placeholder; the rest is kept, its invisible characters
 * escaped. Applying it twice changes nothing more.
 */
export function defang(text: string, nonce?: string): string {
  const copy = matchingCopy(text);
  let out = '';
  let at = 0;
  for (const found of findHazards(copy.text, nonce)) {
    const start = Math.max(at, copy.from[found.start]!);
    const end = Math.max(start, copy.to[found.end - 1]!);
    out += escapeInvisible(text.slice(at, start)) + found.replacement;
    if (found.keepOriginal) out += escapeInvisible(text.slice(start, end));
    at = end;
  }
  return out + escapeInvisible(text.slice(at));
}

// ---------------------------------------------------------------------------------------------
// Invisible characters in the text sent

/**
 * Controls (C0 but newline and tab, DEL, C1), format characters (bidi embeddings, overrides and
 * isolates, marks, zero-width characters, soft hyphen, BOM, tag characters), line and paragraph
 * separators, invisible fillers and lone surrogates: each can hide or reorder what the model
 * reads (a right-to-left override turns `gpj.exe` into what looks like `exe.jpg`), so each is
 * shown as a visible `\u{…}` escape.
 */
const INVISIBLE = /[\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u0000-\u0008\u000B-\u001F\u007F-\u009F\u115F\u1160\u3164\uFFA0]/gu;

function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}
