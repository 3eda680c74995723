/**
 * What a word is, in one place. The analyzer reads words in two shapes, and each term list depends on its shape:
 * change one and the terms of the same text change, so bump `LEXICAL_ANALYZER` (BM25, `lexical-tokens.ts`) or the
 * hashing embedder's id (`hashing-tfidf-v2`, `lexical-terms.ts`) with it.
 */

/**
 * BM25's word (`lexicalTokens`): letters, marks, digits, `_` and apostrophes, joined by `.`, `-` or `/`
 * (`v2.9.1`, `no-color`, `src/a.ts`), so exact names, flags, paths and versions stay one word beside their parts;
 * `_` is in the word and parts it too (`file_path` → `file`, `path`, `file_path`).
 */
export const IDENTIFIER_WORD = /[\p{L}\p{M}\p{N}_'’]+(?:[./-][\p{L}\p{M}\p{N}_'’]+)*/gu;

// IDENTIFIER_WORD's classes on ASCII: 1 for a word character (letter, digit, `_`, `'`), 2 for a joiner (`.`, `/`,
// `-`), 0 for anything else.
const ASCII_WORD_KIND = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  ASCII_WORD_KIND[code] = /[\p{L}\p{M}\p{N}_'’]/u.test(char) ? 1 : /[./-]/.test(char) ? 2 : 0;
}

/**
 * {@link IDENTIFIER_WORD}'s matches in text that {@link isAscii}, found without the regular expression (its Unicode
 * classes took about a third of BM25's analysis of a document): `onWord(start, end)` for each, in order.
 */
export function eachAsciiIdentifierWord(text: string, onWord: (start: number, end: number) => void): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    while (index < length && ASCII_WORD_KIND[text.charCodeAt(index)] !== 1) index++;
    if (index === length) return;
    const start = index;
    index = wordRunEnd(text, index + 1);
    // `(?:[./-][word]+)*`: a joiner continues the word only with a word character after it.
    while (
      index + 1 < length &&
      ASCII_WORD_KIND[text.charCodeAt(index)] === 2 &&
      ASCII_WORD_KIND[text.charCodeAt(index + 1)] === 1
    )
      index = wordRunEnd(text, index + 2);
    onWord(start, index);
  }
}

function wordRunEnd(text: string, from: number): number {
  let index = from;
  while (index < text.length && ASCII_WORD_KIND[text.charCodeAt(index)] === 1) index++;
  return index;
}

// Words as Unicode's word-boundary rules (UAX #29, which Intl.Segmenter follows) find them in text with spaces:
// letters, digits and "_", joined by "." "'" "’" ":" between letters and "." "," ";" "'" between digits
// ("e.g", "don't", "v2.9.1", "1,234"). About 7× faster than the segmenter, which only gets the runs below.
const WORD_PART = String.raw`[\p{L}\p{N}_][\p{L}\p{M}\p{N}_]*`;
/** The hashing embedder's word (`lexicalTerms`), and BM25's inside Chinese, Japanese and Korean runs. */
export const UAX29_WORD = new RegExp(
  String.raw`${WORD_PART}(?:(?:(?<=[\p{L}\p{M}])[.'’:](?=\p{L})|(?<=\p{N})[.,;'’](?=\p{N}))${WORD_PART})*`,
  "gu",
);

/** Scripts written without spaces: only ICU's dictionary (`Intl.Segmenter`) finds their words. */
export const DICTIONARY_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

const CJK_CHARACTER = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]`;
/** A Chinese, Japanese or Korean character: a word holding one is read by `lexicalTerms`, with bigrams. */
export const CJK = new RegExp(CJK_CHARACTER, "u");
/**
 * A run of Chinese, Japanese or Korean characters, whose character bigrams are terms too. Korean writes spaces
 * between words but fuses particles onto them (한강은, 한강을): its bigrams match the stem.
 */
export const CJK_RUN = new RegExp(`${CJK_CHARACTER}+`, "gu");
