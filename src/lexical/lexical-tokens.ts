import { lexicalTerms, STOP_WORDS, stem } from "../embedding/lexical-terms.js";
import { TEXT_WINDOW, textWindowSlices } from "../util/text-windows.js";

// Intl.Segmenter is slow (about 1 s per MB of English) and superlinear in its input, so it only ever sees CJK
// runs, in pieces of at most this many characters.
const CJK_PIECE = 256;

// A word: letters, marks, digits, `_` and apostrophes, joined by `.`, `-` or `/` (`v2.9.1`, `no-color`, `src/a.ts`);
// `_` joins parts too (`file_path` → `file`, `path`, `file_path`).
const WORD = /[\p{L}\p{M}\p{N}_'’]+(?:[./-][\p{L}\p{M}\p{N}_'’]+)*/gu;
const JOINER = /[./_-]/;
// `v2.9.1` is also found as `2.9.1`, and `v5` as `5`.
const VERSION = /^v\d/;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const DIGITS = /^\p{N}+$/u;
// A lowercase letter or digit followed by an uppercase one: the seam of a camelCase identifier.
const CAMEL_SEAM = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})/u;

/**
 * The terms BM25 indexes, in order. Text is NFKC-normalised and lowercased. A word joined by `.`, `-`, `/` or `_`
 * gives its parts and the whole (`options.timeout` → `options`, `timeout`, `options.timeout`; `v2.9.1` →
 * `v2`, `v2.9.1`), so both a bare name and an exact flag or version match; a camelCase word gives its parts
 * too (`keepAliveTimeout` → `keep`, `alive`, `timeout`, `keepalivetimeout`), and a version also without its
 * `v` (`v5` → `5`). English stop words are dropped and
 * plural `-s` stripped (as in the hashing embedder). Chinese and Japanese runs go through `Intl.Segmenter`
 * plus character bigrams (`lexicalTerms`).
 *
 * Linear in the text: it is read in windows of at most `TEXT_WINDOW` (2,048) characters cut at whitespace or
 * CJK punctuation. A run longer than a window without any break (base64, minified code) is cut anyway; a
 * word across that cut is split in two, which costs recall only on text no one searches by word.
 * @param onWindow test seam: sees every window and CJK piece a pass receives.
 */
export function lexicalTokens(text: string, onWindow?: (window: string) => void): string[] {
  const terms: string[] = [];
  for (const window of textWindowSlices(text, TEXT_WINDOW)) {
    onWindow?.(window);
    pushWindowTerms(terms, window.normalize("NFKC"), onWindow);
  }
  return terms;
}

function pushWindowTerms(terms: string[], window: string, onWindow?: (window: string) => void): void {
  for (const [cased] of window.matchAll(WORD)) {
    const word = cased.toLowerCase();
    if (CJK.test(word)) {
      for (const piece of textWindowSlices(word, CJK_PIECE)) {
        onWindow?.(piece);
        for (const term of lexicalTerms(piece)) terms.push(term);
      }
      continue;
    }
    if (VERSION.test(word)) terms.push(word.slice(1));
    if (!JOINER.test(word)) {
      pushCamelParts(terms, cased);
      pushWord(terms, word);
      continue;
    }
    for (const part of cased.split(JOINER)) {
      if (DIGITS.test(part)) continue;
      pushCamelParts(terms, part);
      pushWord(terms, part.toLowerCase());
    }
    terms.push(word);
  }
}

function pushCamelParts(terms: string[], word: string): void {
  if (!CAMEL_SEAM.test(word)) return;
  for (const part of word.split(CAMEL_SEAM)) pushWord(terms, part.toLowerCase());
}

function pushWord(terms: string[], raw: string): void {
  // Apostrophes at the ends are quotes or plural possessives ('name', zebras'), not part of the word.
  const word = raw.replace(/^['’]+|['’]+$/g, "");
  if (word === "" || STOP_WORDS.has(word)) return;
  const stemmed = stem(word);
  if (stemmed !== "" && !STOP_WORDS.has(stemmed)) terms.push(stemmed);
}
