/**
 * What counts as a hazard inside fenced output, matched case-insensitively on the normalised copy
 * (fence-normalise.ts): look-alikes of the fence marker, chat-template tokens, tags that agent
 * harnesses use for turns and tool calls, and role names at the start of a line. Each is found
 * with its escaped and spaced-out spellings, and with the ASCII look-alikes that normalising
 * keeps (`0` for `o`; `1`, `I` and `|` for `l`; `rn` for `m`: the ASCII entries of UTS #39).
 * Pure functions over strings.
 */

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
/**
 * A harness tag becomes words, as tokens do, rather than a readable `[tag <invoke> …]`: a copy of
 * the tag, even inside brackets, is still a tag to a model and would be found again by defang.
 */
export function tagPlaceholder(label: string): string {
  return `[tag ${label} removed]`;
}
/**
 * Put before a role name that starts a line, so `Human:` no longer starts one; the text stays.
 * No word of the fence's tag: `[output]` after a line ending in `<untrusted` made a new look-alike
 * of the marker out of the two (a property test found `%3cuntrusted` + a role line).
 */
export const ROLE_LINE_MARKER = '[printed] ';

export interface Hazard {
  /** Range in the normalised copy. */
  start: number;
  end: number;
  /** What the text sent shows instead, or, when `keepOriginal`, just before the original. */
  replacement: string;
  keepOriginal: boolean;
}

// ---------------------------------------------------------------------------------------------
// Spellings

/** The fence's tag name; its markers and every look-alike of them are matched from this one spelling. */
export const FENCE_TAG = 'untrusted-output';

/** A letter and its ASCII look-alikes (UTS #39 maps `0` to `O`; `1`, `I`, `|` to `l`; `m` to `rn`). */
const ASCII_LOOK_ALIKES: Readonly<Record<string, string>> = { o: '[o0]', i: '[il1|]', l: '[il1|]', m: '(?:m|rn)' };

/**
 * Between the parts of a name (`untrusted output`, `function_calls`): any run of anything but a
 * letter, digit, bracket or bar, newlines included: `untrusted    output`, `tool - use`.
 */
const WORD_JOIN = String.raw`[^\p{L}\p{N}<>|]*`;

/** `function_calls` as a pattern: each letter with its look-alikes, any join between the parts. */
function spelledLoosely(name: string): string {
  return name
    .split(/[-_ ]/)
    .map((part) => [...part].map((letter) => ASCII_LOOK_ALIKES[letter] ?? letter).join(''))
    .join(WORD_JOIN);
}

/**
 * `<` as written raw, as HTML entities, in JSON, C, Rust, Perl or URL escapes (URL ones encoded
 * again), and as octal (`\074`, `\74`) and CSS (`\3c `, `\00003c`) escapes. The space a CSS escape
 * may end with is left to what follows (`BRACKET_INSIDE` takes it), so that no repeated part can
 * match it in two ways and backtrack.
 */
const OPEN = String.raw`(?:<|&lt;?|&#0*60;?|&#x0*3c;?|\\u0*3c|\\u\{0*3c\}|\\x0*3c|\\x\{0*3c\}|%(?:25)*3c|\\0*74|\\0*3c)`;
/** `>` in the same spellings; the space after a CSS escape stays in the text. */
const CLOSE = String.raw`(?:>|&gt;?|&#0*62;?|&#x0*3e;?|\\u0*3e|\\u\{0*3e\}|\\x0*3e|\\x\{0*3e\}|%(?:25)*3e|\\0*76|\\0*3e)`;
/** Either slash (`<\/`, `<\\/`), or escaped. */
const SLASH = String.raw`(?:[/\\]|&sol;|&#0*47;?|&#x0*2f;?|\\u0*2f|\\u\{0*2f\}|\\x0*2f|\\x\{0*2f\}|%(?:25)*2f|\\0*57|\\0*2f)`;
/**
 * What may stand between `<`, the slashes and the name: whitespace, `-`, `_`, `.`. The
 * alternatives start with different characters, so the repetition cannot backtrack badly.
 */
const BRACKET_INSIDE = String.raw`(?:[\s\-_.]|${SLASH})*`;
/** Attributes up to the `>` that ends a tag: `<invoke name="run_command">`. */
const ATTRIBUTES = String.raw`(?:[\s/][^<>]{0,200}?)?`;

/** Any opening or closing fence marker, with its attributes up to `>`, or just its head. */
const MARKER = String.raw`${OPEN}${BRACKET_INSIDE}${spelledLoosely(FENCE_TAG)}(?:[^<>\n]{0,200}?${CLOSE})?`;

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
const PIPE_TOKEN = String.raw`${OPEN}\|(?<pipeName>[^|<>\s]{1,40})\|${CLOSE}`;
const SYS_TOKEN = String.raw`<<\s*(?<sysSlash>/?)\s*(?<sysName>sys)\s*>>`;
const ANGLE_TOKEN_NAMES = [
  's',
  'bos',
  'eos',
  'im_start',
  'im_end',
  'start_of_turn',
  'end_of_turn',
  'think',
  'tool_call',
  'tool_response',
  'file_sep',
  'reponame',
];
const ANGLE_TOKEN = String.raw`${OPEN}(?<angleInside>${BRACKET_INSIDE})(?<angleName>${ANGLE_TOKEN_NAMES.map(spelledLoosely).join('|')}|fim_[a-z]+)\s*${CLOSE}`;
const BRACKET_TOKEN_NAMES = [
  'inst',
  'sys',
  'system_prompt',
  'tool_calls',
  'available_tools',
  'tool_results',
  'tool_content',
  'think',
];
const BRACKET_TOKEN = String.raw`\[\s*(?<bracketSlash>/?)\s*(?<bracketName>${BRACKET_TOKEN_NAMES.map(spelledLoosely).join('|')})\s*\]`;
const TOKEN = `${SYS_TOKEN}|${PIPE_TOKEN}|${ANGLE_TOKEN}|${BRACKET_TOKEN}`;

/**
 * Tags that agent harnesses write around turns, tool calls and reasoning (Claude's
 * `<function_calls>`/`<invoke>`/`<parameter>`, `<function_results>`, `<system-reminder>`,
 * `<thinking>`; `<tool_use>`, `<tool_result>`, `<tool_calls>` of other harnesses; plain role
 * tags), with or without a namespace prefix (`<ns:invoke>`). None is a real token, but a model
 * that reads `</function_results>` in output may believe the tool result ended there.
 */
export const HARNESS_TAG_NAMES = [
  'system-reminder',
  'system',
  'user',
  'assistant',
  'human',
  'function_calls',
  'function_results',
  'function_result',
  'invoke',
  'parameter',
  'thinking',
  'tool_calls',
  'tool_use',
  'tool_results',
  'tool_result',
];
const TAG = String.raw`${OPEN}(?<tagInside>${BRACKET_INSIDE})(?:[a-z]{1,20}:)?(?<tagName>${HARNESS_TAG_NAMES.map(spelledLoosely).join('|')})${ATTRIBUTES}${CLOSE}`;

/**
 * A role name that starts a line, as the old Anthropic (`\n\nHuman:`), Alpaca (`### Instruction:`)
 * and plain chat transcripts (`User:`, `AI:`) write turns; headings, quotes, list dashes and
 * emphasis around it change nothing. The headed form also takes the Alpaca section names.
 */
const ROLE_NAMES = ['system', 'developer', 'user', 'assistant', 'human', 'ai'];
const HEADED_ROLE_NAMES = [...ROLE_NAMES, 'instruction', 'instructions', 'response', 'input'];
const ROLE_LINE = String.raw`(?<=^|\n)[\t >*_\-]*(?:#{1,6}[\t ]*[*_]*(?:${HEADED_ROLE_NAMES.map(spelledLoosely).join('|')})|(?:${ROLE_NAMES.map(spelledLoosely).join('|')}))[*_]*[\t ]*:`;

/**
 * Compiled once: the pattern is large, and a /iu pattern with Unicode classes takes about 10 ms to
 * compile, so the nonce (new for every read) is looked for on its own.
 */
const HAZARD_PATTERN = new RegExp(
  [`(?<marker>${MARKER})`, `(?<token>${TOKEN})`, `(?<tag>${TAG})`, `(?<role>${ROLE_LINE})`].join('|'),
  'giu',
);

/** Every hazard in a normalised copy, in order and disjoint. */
export function findHazards(normalised: string, nonce?: string): Hazard[] {
  const hazards: Hazard[] = [];
  for (const match of normalised.matchAll(HAZARD_PATTERN)) {
    const groups = match.groups!;
    const end = match.index + match[0].length;
    hazards.push({
      start: match.index,
      end,
      replacement: replacementFor(groups, nonce),
      keepOriginal: Boolean(groups.role),
    });
  }
  return nonce ? withNonceLeaks(hazards, normalised, nonce) : hazards;
}

/**
 * The nonce cannot be guessed, but a leak is still defanged. It is hex, so it needs no escaping.
 * Every other hazard starts with a character that is not hex (`<`, `&`, `\`, `%`, `[`) or with a
 * role name at a line start, which no run of 20 hex digits can share; so a nonce can only begin
 * inside one that ends in an escape (`&#x3e`): it then starts where that one ends, and one wholly
 * inside (a forged marker's attribute) goes with it.
 */
function withNonceLeaks(hazards: Hazard[], normalised: string, nonce: string): Hazard[] {
  const merged: Hazard[] = [];
  let next = 0;
  for (const match of normalised.matchAll(new RegExp(nonce, 'gi'))) {
    let start = match.index;
    const end = start + match[0].length;
    while (next < hazards.length && hazards[next]!.start <= start) merged.push(hazards[next++]!);
    const before = merged.at(-1);
    if (before && before.end >= end) continue;
    if (before && before.end > start) start = before.end;
    merged.push({ start, end, replacement: NONCE_PLACEHOLDER, keepOriginal: false });
  }
  return [...merged, ...hazards.slice(next)];
}

type Groups = Record<string, string | undefined>;

function replacementFor(groups: Groups, nonce?: string): string {
  if (groups.marker) return MARKER_PLACEHOLDER;
  if (groups.tag) return tagPlaceholder(`${closingSlash(groups.tagInside)}${harnessTagName(groups.tagName!)}`);
  if (groups.role) return ROLE_LINE_MARKER;
  const label =
    groups.pipeName ??
    (groups.sysName && `${groups.sysSlash}${groups.sysName}`) ??
    (groups.angleName && `${closingSlash(groups.angleInside)}${groups.angleName}`) ??
    `${groups.bracketSlash}${groups.bracketName}`;
  return tokenPlaceholder(plainLabel(label, nonce));
}

/** `<|im_start|>` → `im_start`, `[/INST]` → `/INST`: only plain characters survive, never the nonce. */
function plainLabel(label: string, nonce?: string): string {
  const plain = label.replace(/[^A-Za-z0-9_./-]+/g, '_').slice(0, 40) || 'token';
  return nonce ? plain.replace(new RegExp(nonce, 'gi'), 'nonce') : plain;
}

const SLASH_ANYWHERE = new RegExp(SLASH, 'iu');
function closingSlash(bracketInside: string | undefined): string {
  return bracketInside && SLASH_ANYWHERE.test(bracketInside) ? '/' : '';
}

const TAG_NAME_SPELLINGS = HARNESS_TAG_NAMES.map((name) => ({
  name,
  spelling: new RegExp(`^${spelledLoosely(name)}$`, 'iu'),
}));

/** `Function  Calls` → `function_calls`: the name as harnesses spell it. */
function harnessTagName(spelled: string): string {
  return TAG_NAME_SPELLINGS.find((candidate) => candidate.spelling.test(spelled))?.name ?? 'tag';
}
