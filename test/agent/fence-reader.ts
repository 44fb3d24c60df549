/**
 * How a careless reader (a model, a tokenizer, a tired person) reads fenced output, written for
 * the fence tests independently of the code under test, so that they judge it rather than repeat it.
 */

/**
 * Look-alikes a reader takes for each letter, one or more from every class the fence must know:
 * Cyrillic, Greek, IPA, Latin Extended, small capitals, Cherokee, Armenian, mathematical letters,
 * accented letters. Written here, not taken from the code.
 */
export const LOOK_ALIKES: Record<string, string> = {
  a: 'аɑαᴀ𝐚á',
  b: 'ьвʙ',
  c: 'сϲᴄ',
  d: 'ԁᴅɗꓒᏧ𝐝',
  e: 'еεєᴇҽꬲꭼ𝐞é',
  f: 'ꜰƒ',
  g: 'ɡցɢ',
  h: 'һʜнℎհ',
  i: 'іɪιıӏ𝐢',
  k: 'кκᴋ',
  l: 'ӏʟɩⅼ',
  m: 'мᴍɱ',
  n: 'ոɴпηπꞑŋռ𝐧ñ',
  o: 'оοօᴏσꮻ০𝐨ö',
  p: 'рρᴘꮲƥ𝐩',
  r: 'ɾгʀᴦꭇꮁяɼ𝐫ř',
  s: 'ѕꜱʂꮪ𝐬',
  t: 'тτᴛŧʈƭꭲᎢ𝐭',
  u: 'ᴜսυʋꭒꮜμциџ𝐮ü',
  v: 'ѵνᴠ',
  w: 'ԝωᴡш',
  y: 'уγʏ',
};

/** `word` with its `index`-th letter (counting letters only) replaced by `lookAlike`. */
function withLetter(word: string, index: number, lookAlike: string): string {
  let seen = -1;
  return [...word].map((char) => (/[a-z]/i.test(char) && ++seen === index ? lookAlike : char)).join('');
}

/** Every spelling of `word` with one letter swapped for one of its look-alikes. */
export function oneLetterSwaps(word: string): string[] {
  const letters = [...word].filter((char) => /[a-z]/i.test(char));
  return letters.flatMap((letter, index) =>
    [...(LOOK_ALIKES[letter.toLowerCase()] ?? '')].map((lookAlike) => withLetter(word, index, lookAlike)),
  );
}

/** Look-alike letter → the letter, from the table above. */
const READER_LETTERS = new Map(
  Object.entries(LOOK_ALIKES).flatMap(([letter, lookAlikes]) =>
    [...lookAlikes].map((lookAlike): [string, string] => [lookAlike, letter]),
  ),
);

/**
 * The body as a careless reader takes it, worked out here and not by the code under test: visible
 * escapes skipped, compatibility forms folded, invisible characters and accents dropped, the
 * look-alikes above read as letters, and escaped brackets and slashes read as what they encode.
 */
export function readerView(body: string): string {
  return body
    .replace(/\\u\{[0-9a-f]+\}/g, '')
    .normalize('NFKD')
    .replace(/[\p{Mn}\p{Cf}\u0000-\u0008\u000B-\u001F\u007F-\u009F]/gu, '')
    .replace(/./gsu, (char) => READER_LETTERS.get(char) ?? char)
    .replace(/\\0*74|\\0*3c|&lt;|\\u003c|%3c|\u2039/gi, '<')
    .replace(/\\0*76|\\0*3e|&gt;|\\u003e|%3e|\u203A/gi, '>')
    .replace(/\\0*57|\\0*2f|&#47;/gi, '/')
    .toLowerCase();
}
