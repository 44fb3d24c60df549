import { randomBytes } from 'node:crypto';

/**
 * Child output is data, never instructions. It reaches the model inside a fence whose markers
 * carry a random nonce, new for every read, so output cannot guess the real closing marker.
 * Inside, every look-alike of a marker, every chat-template token and every invisible control
 * is neutralised. Look-alikes are found on a normalised copy (compatibility forms folded,
 * invisible characters dropped, confusable brackets mapped), case-insensitively, every time:
 * there is no "already fenced" shortcut. The text sent keeps the program's own characters
 * everywhere else. Pure functions; the log reading lives in tools.ts.
 */
export const FENCE_TAG = 'untrusted-output';

/** Output the model may see inline; the newest part matters most (verdicts, final errors). */
export const INLINE_OUTPUT_MAX_CHARS = 30_000;

/** 80 bits: far beyond guessing, and output never sees the nonce before it is chosen. */
const NONCE_BYTES = 10;

/**
 * What replaces a look-alike: plain words in square brackets, which no model reads as a tag.
 * (Defanging used to swap `<` for U+2039 `‹`, which only helps if the model tells the two
 * apart; a tokenizer or a tired reader may not.)
 */
export const MARKER_PLACEHOLDER = '[fence marker removed]';
export const NONCE_PLACEHOLDER = '[fence nonce removed]';
export function tokenPlaceholder(label: string): string {
  return `[special token ${label} removed]`;
}

export function newFenceNonce(): string {
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
    const end = copy.to[found.end - 1]!;
    out += escapeInvisible(text.slice(at, start)) + found.placeholder;
    at = Math.max(at, end);
  }
  return out + escapeInvisible(text.slice(at));
}

// ---------------------------------------------------------------------------------------------
// The normalised copy

/**
 * The text as a model might read it: each character's compatibility form (NFKD, of which NFKC
 * is the recomposition; recomposing only matters for accents, which are dropped here), with
 * combining marks, format characters (Cf: zero-width spaces and joiners, soft hyphen, bidi
 * controls, BOM, tag characters), controls, fillers and lone surrogates dropped, and known
 * confusables of the characters that make up markers and tokens mapped to ASCII.
 * `from[i]`/`to[i]` give the range of the original text that copy character `i` came from.
 */
export interface MatchingCopy {
  text: string;
  from: number[];
  to: number[];
}

export function matchingCopy(original: string): MatchingCopy {
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let index = 0; index < original.length; ) {
    const point = original.codePointAt(index)!;
    const width = point > 0xffff ? 2 : 1;
    const folded = foldCodePoint(point);
    for (let k = 0; k < folded.length; k++) {
      from.push(index);
      to.push(index + width);
    }
    text += folded;
    index += width;
  }
  return { text, from, to };
}

/** Invisible to a reader, yet able to split a marker: never part of what is matched. */
const DROPPED_WHEN_MATCHING = /[\p{Cc}\p{Cf}\p{Cs}\p{M}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u2800]/u;

function foldCodePoint(point: number): string {
  if (point === 0x09 || point === 0x0a) return String.fromCharCode(point);
  if (point >= 0x20 && point < 0x7f) return String.fromCharCode(point);
  let folded = '';
  for (const char of String.fromCodePoint(point).normalize('NFKD')) {
    if (DROPPED_WHEN_MATCHING.test(char)) continue;
    folded += CONFUSABLES.get(char) ?? char;
  }
  return folded;
}

/**
 * Look-alikes NFKD leaves alone, mapped to the ASCII a reader would take them for: brackets,
 * slashes, bars and dashes, and the Cyrillic and Greek letters that pass for Latin ones.
 */
const CONFUSABLES = new Map<string, string>(
  Object.entries({
    '<': '\u2039\u2329\u3008\u27E8\u02C2\u1438\u276E\u2770\u227A\u29FC',
    '>': '\u203A\u232A\u3009\u27E9\u02C3\u1433\u276F\u2771\u227B\u29FD',
    '/': '\u2044\u2215\u29F8\u2571\u1735\u27CB',
    '\\': '\u2216\u29F5\u29F9\u2572\u27CD',
    '|': '\u2223\u01C0\u05C0\u2758\u23D0\u2502\u2503\u0964\u07CA\u2D4F',
    '-': '\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\u02D7\u2796\u2E3A\u2E3B',
    '[': '\u27E6\u3010\u3014\u301A\u2045\u298B',
    ']': '\u27E7\u3011\u3015\u301B\u2046\u298C',
    a: '\u0430\u03B1', c: '\u0441\u03F2', d: '\u0501', e: '\u0435', h: '\u04BB', i: '\u0456\u03B9\u0131',
    j: '\u0458\u0237', k: '\u03BA', m: '\u043C', n: '\u0578\u03B7', o: '\u043E\u03BF\u0585', p: '\u0440\u03C1',
    s: '\u0455', t: '\u03C4', u: '\u057D\u03C5', v: '\u03BD', x: '\u0445\u03C7', y: '\u0443\u03B3',
    A: '\u0410\u0391', B: '\u0412\u0392', C: '\u0421', E: '\u0415\u0395', H: '\u041D\u0397', I: '\u0406\u0399',
    K: '\u041A\u039A', M: '\u041C\u039C', N: '\u039D', O: '\u041E\u039F', P: '\u0420\u03A1', S: '\u0405',
    T: '\u0422\u03A4', X: '\u0425\u03A7', Y: '\u03A5',
  }).flatMap(([ascii, lookAlikes]) => [...lookAlikes].map((lookAlike): [string, string] => [lookAlike, ascii])),
);

// ---------------------------------------------------------------------------------------------
// What counts as a hazard (matched on the normalised copy)

/** `<` as written raw, as HTML entities, JSON, C, Rust or URL escapes. */
const OPEN = String.raw`(?:<|&lt;?|&#0*60;?|&#x0*3c;?|\\u0*3c|\\u\{0*3c\}|\\x3c|%3c)`;
const CLOSE = String.raw`(?:>|&gt;?|&#0*62;?|&#x0*3e;?|\\u0*3e|\\u\{0*3e\}|\\x3e|%3e)`;
/** Either slash, repeated (`<\/`, `<\\/`), or escaped. */
const SLASH = String.raw`(?:[/\\]|&sol;|&#0*47;?|&#x0*2f;?|\\u0*2f|\\u\{0*2f\}|\\x2f|%2f)`;

/**
 * Any opening or closing marker: the tag with any short non-alphanumeric join (`-`, `_`, a
 * space, a dot), spaces and slashes inside the bracket, and its attributes up to the `>` that
 * ends it on the same line (or just the head, when no `>` follows).
 */
const MARKER = String.raw`${OPEN}\s*(?:${SLASH}\s*)*untrusted[^a-z0-9<>]{0,3}output(?:[^<>\n]{0,200}?${CLOSE})?`;

/**
 * Chat-template tokens of the common families. A model that reads one in a tool result may take
 * it for a turn boundary; worse, servers that render the template to text and then tokenize it
 * (llama.cpp, vLLM and others) turn such text into the real token. So each is shown as words:
 * - `<|anything|>`: ChatML (`<|im_start|>`), Llama 3 (`<|eot_id|>`, `<|start_header_id|>`), Phi,
 *   gpt-oss Harmony (`<|channel|>`, `<|message|>`, `<|return|>`, `<|call|>`), FIM
 *   (`<|fim_prefix|>`), GPT (`<|endoftext|>`), Command R, Granite, and DeepSeek's fullwidth
 *   `<｜User｜>` once folded;
 * - `<<SYS>>` and `<</SYS>>` (Llama 2);
 * - bare angle tokens: `<s>`, `</s>`, `<bos>`, `<eos>` (Llama 2, Mistral, Gemma), `<start_of_turn>`
 *   and `<end_of_turn>` (Gemma), `<im_start>`, `<fim_…>` (StarCoder), `<tool_call>` and
 *   `<tool_response>` (Hermes, Qwen), and `<think>`/`</think>`: Qwen3 and DeepSeek-R1 have them as
 *   real tokens, and a closing one in a tool result can make a reasoning model believe its own
 *   reasoning ended or pass planted reasoning off as its own. Output that legitimately prints
 *   them loses nothing but the brackets;
 * - square-bracket tokens of Mistral: `[INST]`, `[/INST]`, `[SYSTEM_PROMPT]`, `[TOOL_CALLS]`…
 */
const PIPE_TOKEN = String.raw`<\|[^|<>\s]{1,40}\|>`;
const SYS_TOKEN = String.raw`<<\s*/?\s*sys\s*>>`;
const ANGLE_TOKEN = String.raw`<\s*/?\s*(?:s|bos|eos|im_start|im_end|start_of_turn|end_of_turn|think|tool_call|tool_response|fim_[a-z]+|file_sep|reponame)\s*>`;
const BRACKET_TOKEN = String.raw`\[\s*/?\s*(?:inst|sys|system_prompt|tool_calls|available_tools|tool_results|tool_content|think)\s*\]`;
const TOKEN = `${SYS_TOKEN}|${PIPE_TOKEN}|${ANGLE_TOKEN}|${BRACKET_TOKEN}`;

export interface Hazard {
  /** Range in the normalised copy. */
  start: number;
  end: number;
  placeholder: string;
}

/** Every hazard in a normalised copy, in order and disjoint. */
export function findHazards(normalised: string, nonce?: string): Hazard[] {
  const parts = [`(?<marker>${MARKER})`, `(?<token>${TOKEN})`];
  // The nonce is hex, so it needs no escaping; it cannot be guessed, but a leak is still defanged.
  if (nonce) parts.unshift(`(?<nonce>${nonce})`);
  const hazards: Hazard[] = [];
  for (const match of normalised.matchAll(new RegExp(parts.join('|'), 'giu'))) {
    const placeholder = match.groups!.nonce ? NONCE_PLACEHOLDER : match.groups!.marker ? MARKER_PLACEHOLDER : tokenPlaceholder(tokenLabel(match[0]));
    hazards.push({ start: match.index, end: match.index + match[0].length, placeholder });
  }
  return hazards;
}

/** `<|im_start|>` → `im_start`, `[/INST]` → `/INST`; only plain characters survive. */
function tokenLabel(token: string): string {
  const inner = token.replace(/^[<[|\s]+|[>\]|\s]+$/g, '');
  return inner.replace(/[^A-Za-z0-9_./-]+/g, '_').slice(0, 40) || 'token';
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

export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}
