import { createRequire } from 'node:module';

/**
 * The normalised copy of child output that the fence searches for markers, tokens and role text:
 * the text as a reader (a model, a tokenizer, a tired person) might take it. Each character
 * becomes the ASCII it passes for: compatibility forms are folded (fullwidth, mathematical
 * alphanumerics, ligatures), accents and other combining marks dropped, and look-alikes mapped
 * by the Unicode confusables data (UTS #39) plus what that data leaves out on purpose. Invisible
 * characters are dropped, so they cannot split a word. ASCII itself is kept as written: the
 * patterns in fence-hazards.ts allow for ASCII look-alikes (`0` for `o`, `1` and `|` for `l`).
 * Pure functions; the tables are built once when the module loads.
 */
export interface MatchingCopy {
  text: string;
  /** `from[i]`/`to[i]`: the range of the original text that copy character `i` came from. */
  from: number[];
  to: number[];
}

export function matchingCopy(original: string): MatchingCopy {
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let index = 0; index < original.length;) {
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

/**
 * Invisible to a reader, or drawn over the letter before (accents, the slash of U+0338), yet able
 * to split a marker: never part of what is matched. Spacing marks (Mc) are visible and stay: some
 * pass for letters (Telugu `ం` for `o`).
 */
const DROPPED_WHEN_MATCHING = /[\p{Cc}\p{Cf}\p{Cs}\p{Mn}\p{Me}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u2800]/u;

/** A prototype can itself have a prototype (Cyrillic т → small capital ᴛ → t); chains are short. */
const MAX_FOLD_DEPTH = 4;

/**
 * Folds of the characters seen so far. Output that is not ASCII (box drawing, CJK, a spinner)
 * repeats a few characters many times, and a fold costs a normalisation and several lookups.
 */
const FOLDED = new Map<number, string>();
const FOLDED_MAX = 8_192;

function foldCodePoint(point: number): string {
  if (point === 0x09 || point === 0x0a) return String.fromCharCode(point);
  if (point >= 0x20 && point < 0x7f) return String.fromCharCode(point);
  let folded = FOLDED.get(point);
  if (folded === undefined) {
    folded = foldText(String.fromCodePoint(point), 0);
    if (FOLDED.size < FOLDED_MAX) FOLDED.set(point, folded);
  }
  return folded;
}

function foldText(text: string, depth: number): string {
  let folded = '';
  for (const char of text) {
    if (DROPPED_WHEN_MATCHING.test(char)) continue;
    folded += char < '\x7f' ? char : foldChar(char, depth);
  }
  return folded;
}

/**
 * Our own tables first (they know what a reader of markers and tokens sees); then the
 * compatibility form when it is plain ASCII (so `ｍ` is `m`, where UTS #39 would say `rn`); then
 * the UTS #39 prototype, folded again; then the compatibility form, folded again.
 */
function foldChar(char: string, depth: number): string {
  const own = PUNCTUATION_LOOK_ALIKES.get(char) ?? LETTER_LOOK_ALIKES.get(char);
  if (own !== undefined) return own;
  if (depth >= MAX_FOLD_DEPTH) return char;
  const compatible = char.normalize('NFKD');
  const compatibleFolded = compatible === char ? '' : foldText(compatible, MAX_FOLD_DEPTH);
  if (/^[\x20-\x7e]+$/.test(compatibleFolded)) return compatibleFolded;
  const prototype = UTS39_PROTOTYPES[char];
  if (prototype !== undefined) return foldText(prototype, depth + 1);
  return compatible === char ? char : foldText(compatible, depth + 1);
}

/**
 * The prototypes of Unicode's confusables.txt (UTS #39, version 13), as the `unhomoglyph` package
 * ships them: `ŧ` → `t` + stroke, `ᴜ` → `u`, Greek `ο` → `o`, Cherokee `Ꮪ` → `S`, `‹` → `<`, and
 * some 6,000 more. Loaded at run time (not imported) so the bundler and the type checker leave the
 * 100 kB table alone.
 */
const UTS39_PROTOTYPES = createRequire(import.meta.url)('unhomoglyph/data.json') as Readonly<Record<string, string>>;

function tableOf(entries: Record<string, string>): ReadonlyMap<string, string> {
  return new Map(
    Object.entries(entries).flatMap(([ascii, lookAlikes]) =>
      [...lookAlikes].map((lookAlike): [string, string] => [lookAlike, ascii]),
    ),
  );
}

/**
 * Brackets, slashes, bars and dashes that NFKD leaves alone. They come before UTS #39 on purpose:
 * it maps bars to `l` (which would hide `<ǀim_startǀ>`) and long dashes to a katakana mark.
 */
const PUNCTUATION_LOOK_ALIKES = tableOf({
  '<': '\u2039\u2329\u3008\u27E8\u02C2\u1438\u276E\u2770\u227A\u29FC',
  '>': '\u203A\u232A\u3009\u27E9\u02C3\u1433\u276F\u2771\u227B\u29FD',
  '/': '\u2044\u2215\u29F8\u2571\u1735\u27CB',
  '\\': '\u2216\u29F5\u29F9\u2572\u27CD',
  '|': '\u2223\u01C0\u05C0\u2758\u23D0\u2502\u2503\u0964\u07CA\u2D4F',
  '-': '\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\u02D7\u2796\u2E3A\u2E3B\u30FC\uA7F7',
  _: '\u2017',
  '[': '\u27E6\u3010\u3014\u301A\u2045\u298B',
  ']': '\u27E7\u3011\u3015\u301B\u2046\u298C',
});

/**
 * Letters that pass for a Latin letter where UTS #39 gives no plain letter: it deliberately
 * leaves small capitals, hooked and barred letters to themselves (`ᴛ`, `ɾ`, `ʀ`, `ꞓ`) or turns
 * a hook into an apostrophe (`Ɓ` → `'b`), and it maps some Cyrillic and Greek letters to those
 * (`т` → `ᴛ`, `к` → `ĸ`, `ε` → `ꞓ`). For the fence each of them reads as the letter.
 * - Latin (first string of each entry): every letter of Latin-1, Latin Extended-A to -G, IPA
 *   Extensions, Phonetic Extensions and Letterlike Symbols whose Unicode 14 name reads
 *   "LATIN … LETTER [SMALL CAPITAL|DOTLESS|SCRIPT|BARRED|LONG] X [WITH …]" and that neither NFKD
 *   nor UTS #39 turn into plain letters; then kra, eng, turned i, insular t, alpha and tone six.
 * - Cyrillic, Greek and Armenian letters that read as Latin ones in print or in italics, and the
 *   faux-Cyrillic letters (`Я` for R, `И` for N, `Д` for A) that play the same game.
 */
const LETTER_LOOK_ALIKES = tableOf({
  a: 'ȺᴀᶏẚⱥⱭ' + 'ДдΔΛ',
  b: 'ƁɃʙᴃᴯᵬᶀꞖꞗ𐞄Ƅƅ' + 'Ъъβϐ',
  c: 'ƇƈȻɕʗᶝꞒꞓꞔꟄ𝼏𝼝' + 'ς',
  d: 'ƊƋȡᴅᵭᶁᶑꟇꟈ𐞍',
  e: 'ᴇᶒⱸꬳꬴ' + 'εϵЄєЭэΣ',
  f: 'ᶂꜰ',
  g: 'ƓɢʛꞠꞡꞬꬶ𐞒𐞔',
  h: 'ʜⱨꞕꞪ𐞖' + 'ђի',
  i: 'ᶖꞮ𝼚ᴉ',
  j: 'ȷɟʄʝᴊᶡᶨ𐞘',
  k: 'ƘᴋᶄⱪꝁꝂꝃꝄꝅꞢꞣĸ' + 'кκϰ',
  l: 'ĿŀȴȽɬʟᴌᶅᶪᶫⱠⱡⱢꝈꝉꞎꞭꬷꬸꬹꭝ𐞛𐞜𐞝𝼄𝼑𝼓' + 'Լլ',
  m: 'ᴍᶆⱮꬺ' + 'мϻ',
  n: 'ȠȵɲɴᶇᶮᶰꞐꞑꞤꞥꬻŊŋƞ' + 'ПпИπΠր',
  o: 'ⱺꝌꝍ𝼛',
  p: 'ƤᴘᵱᶈⱣꝐꝑꝒꝓꝔꝕ',
  q: 'ɊɋꝖꝗꝘꝙꞯ',
  r: 'ɌɾʀᵳᶉⱤꞦꞧꭆꭉꭋꭌ𐞩𐞪𝼖' + 'ЯяΓ',
  s: 'ȿᶊẜⱾꞨꞩꟅꟉꟊ𐞺𝼞',
  t: 'ƫƬȶʈᴛᶵⱦ𐞯𝼉Ꞇꞇ',
  u: 'ᶙꞸꞹ' + 'иЦцЏџμմն',
  v: 'ƲⱱⱴꝞꝟ𐞰',
  w: 'Ⱳⱳ' + 'ШшЩщωϖ',
  x: 'ᶍꭖꭗꭘꭙ' + 'χ',
  y: 'ƳỾ',
  z: 'ɀʑᶎᶽⱫⱬⱿꟆ',
});
