import { checkString } from "../errors/check-string.js";
import { BoundedCache, ownCopy } from "../util/bounded-cache.js";
import { isAscii } from "../util/is-ascii.js";
import { TEXT_WINDOW, textWindowSlices } from "../util/text-windows.js";
import { lexicalTerms, STOP_WORDS, stem } from "./lexical-terms.js";
import { CJK, eachAsciiIdentifierWord, IDENTIFIER_WORD } from "./words.js";

/**
 * The version of the terms a document gives ({@link lexicalDocumentTerms}). A stored BM25 index records the
 * version that built it; one built by another version is rebuilt rather than mixed with new terms. Bump it
 * whenever a change to tokenizing or field weights changes the terms or counts of the same text.
 * 1: words; 2: Markdown heading lines count twice; 3: Korean character bigrams; 4: `-ie` words stemmed as their
 * `-ies` plurals (`cookie`, `cookies` → `cooky`); 5: a word written with a leading dot (`.env`) also whole; 6: a
 * name written with `++` or (one letter) `#` after it (`C++`, `g++`, `C#`, `Notepad++`) with them, a lone letter
 * only so (`c++`, not `c`).
 */
export const LEXICAL_ANALYZER = 6;

// A Markdown ATX heading line (outside code fences): its words count twice in a document, a light BM25F.
const HEADING_LINE = /^ {0,3}#{1,6}[ \t]/;
const FENCE_LINE = /^ {0,3}(?:```|~~~)/;

// Intl.Segmenter is slow (about 1 s per MB of English) and superlinear in its input, so it only ever sees CJK
// runs, in pieces of at most this many characters.
const CJK_PIECE = 256;

const JOINER = /[./_-]/;
// `v2.9.1` is also found as `2.9.1`, and `v5` as `5`.
const VERSION = /^v\d/;
const DIGITS = /^\p{N}+$/u;
const DOT = 0x2e;
const PLUS = 0x2b;
const HASH = 0x23;
// The last part of a word (after its last joiner) that can take `++` or `#`: a letter, then letters or digits.
const SUFFIXABLE_PART = /(?:^|[^A-Za-z0-9])([A-Za-z][A-Za-z0-9]{0,15})$/;
const LEADING_LETTER = /^\p{L}/u;
// What may not stand before a dotted name's dot: a word character (a joined word's seam) or another dot.
const BEFORE_DOT_NAME = /[\p{L}\p{M}\p{N}_'’.]/u;
// A lowercase letter or digit followed by an uppercase one: the seam of a camelCase identifier.
const CAMEL_SEAM = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})/u;

// The terms of each word as written, memoized: prose repeats its words (Zipf), so most words are looked up,
// not split, stemmed and filtered again. Two generations of 50,000 words at most; CJK runs are not memoized.
const WORD_TERMS = new BoundedCache<string, readonly string[]>(50_000);
const NO_TERMS: readonly string[] = [];

/**
 * The terms BM25 indexes, in order. Text is NFKC-normalised and lowercased. A word joined by `.`, `-`, `/` or `_`
 * gives its parts and the whole (`options.timeout` → `options`, `timeout`, `options.timeout`; `v2.9.1` →
 * `v2`, `v2.9.1`), so both a bare name and an exact flag or version match, and a dotfile's name keeps its dot too
 * (`.env` → `env`, `.env`); a camelCase word gives its parts
 * too (`keepAliveTimeout` → `keep`, `alive`, `timeout`, `keepalivetimeout`), and a version also without its
 * `v` (`v5` → `5`). English stop words are dropped and
 * plural `-s` stripped (as in the hashing embedder). Chinese and Japanese runs go through `Intl.Segmenter`
 * plus character bigrams, Korean words are kept whole plus their character bigrams (`lexicalTerms`).
 *
 * Linear in the text: it is read in windows of at most `TEXT_WINDOW` (2,048) characters cut at whitespace or
 * CJK punctuation. A run longer than a window without any break (base64, minified code) is cut anyway; a
 * word across that cut is split in two, which costs recall only on text no one searches by word.
 * @param onWindow test seam: sees every window and CJK piece a pass receives.
 */
export function lexicalTokens(text: string, onWindow?: (window: string) => void): string[] {
  checkString("text", text);
  const terms: string[] = [];
  for (const window of textWindowSlices(text, TEXT_WINDOW)) {
    onWindow?.(window);
    // NFKC leaves ASCII as it is.
    if (isAscii(window)) {
      eachAsciiIdentifierWord(window, (start, end) =>
        pushMatchTerms(terms, window, start, window.slice(start, end), onWindow),
      );
    } else {
      const normalized = window.normalize("NFKC");
      for (const match of normalized.matchAll(IDENTIFIER_WORD))
        pushMatchTerms(terms, normalized, match.index, match[0], onWindow);
    }
  }
  return terms;
}

/** The terms of the word `cased`, found at `index` of `window`. */
function pushMatchTerms(
  terms: string[],
  window: string,
  index: number,
  cased: string,
  onWindow: ((window: string) => void) | undefined,
): void {
  if (isDotName(window, index, cased)) terms.push(`.${cased.toLowerCase()}`);
  const named = suffixedName(window, index + cased.length, cased);
  // A one-letter word is only its name (`C++` is not the letter C, nor `C#`): C and C++ text then match apart.
  if (named !== undefined && cased.length === 1) {
    terms.push(named);
    return;
  }
  let known = WORD_TERMS.get(cased);
  if (known === undefined) {
    const word = cased.toLowerCase();
    if (CJK.test(word)) {
      for (const piece of textWindowSlices(word, CJK_PIECE)) {
        onWindow?.(piece);
        for (const term of lexicalTerms(piece)) terms.push(term);
      }
      return;
    }
    const found: string[] = [];
    pushWordTerms(found, cased, word);
    // Copies: a term can be a slice of the word, and so of the document it came from.
    known = found.length === 0 ? NO_TERMS : found.map(ownCopy);
    WORD_TERMS.set(ownCopy(cased), known);
  }
  for (const term of known) terms.push(term);
  if (named !== undefined) terms.push(named);
}

/**
 * The name a word's last part makes with the `++` or `#` written right after it, lowercased: `C++` → `c++`, `g++`,
 * `Notepad++`, `C/C++` → `c++`; `C#`, `F#` (one letter before `#` only, and no word character after it, so `a#b`,
 * `issue#12` and Markdown's `#` are not names). A longer word keeps its own terms beside the name (`notepad`); a
 * one-letter word is only the name (`pushMatchTerms`), so a question about C++ matches "C++" and not every "C".
 * Undefined when there is none.
 */
function suffixedName(window: string, end: number, cased: string): string | undefined {
  const next = window.charCodeAt(end);
  if (next !== PLUS && next !== HASH) return undefined;
  const part = SUFFIXABLE_PART.exec(cased)?.[1];
  if (part === undefined) return undefined;
  if (next === PLUS) {
    if (window.charCodeAt(end + 1) !== PLUS || window.charCodeAt(end + 2) === PLUS) return undefined;
    return `${part.toLowerCase()}++`;
  }
  if (part.length !== 1 || /[\p{L}\p{N}_]/u.test(window.charAt(end + 1))) return undefined;
  return `${part.toLowerCase()}#`;
}

/**
 * Whether the word at `index` is written with a leading dot, as a dotfile or extension is named (`.env`,
 * `.gitignore`, `.npmrc`, `*.mjs`): one `.` right before a word that starts with a letter, and no letter, digit
 * or dot before that (so `process.env`, `e.g.` and `...and` are not). The dotted name is a term of its own beside
 * the bare word, as `options.timeout` is beside `timeout`: a question about the `.env` file then prefers the text
 * that names the file over text that only says `env`.
 */
function isDotName(window: string, index: number, word: string): boolean {
  if (index === 0 || window.charCodeAt(index - 1) !== DOT || !LEADING_LETTER.test(word)) return false;
  return index === 1 || !BEFORE_DOT_NAME.test(window.charAt(index - 2));
}

/** The terms of one non-CJK word (`cased` as written, `word` lowercased). */
function pushWordTerms(terms: string[], cased: string, word: string): void {
  if (VERSION.test(word)) terms.push(word.slice(1));
  if (!JOINER.test(word)) {
    pushCamelParts(terms, cased);
    pushWord(terms, word);
    return;
  }
  for (const part of cased.split(JOINER)) {
    if (DIGITS.test(part)) continue;
    pushCamelParts(terms, part);
    pushWord(terms, part.toLowerCase());
  }
  terms.push(word);
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

/**
 * The terms BM25 indexes for a document: {@link lexicalTokens} of the text, plus those of its Markdown heading
 * lines (`# …` to `###### …`, not inside code fences) a second time. A heading names what its section is
 * about, so its words weigh as a second field with weight 2 (a light BM25F); query terms are plain
 * `lexicalTokens`. One pass over the lines, so linear.
 */
export function lexicalDocumentTerms(text: string): string[] {
  const terms = lexicalTokens(text);
  const headings: string[] = [];
  let inFence = false;
  let offset = 0;
  while (offset < text.length) {
    const newline = text.indexOf("\n", offset);
    const end = newline === -1 ? text.length : newline;
    // Only the start of a line is tested, so a long line costs no more than its first characters.
    const start = text.slice(offset, Math.min(end, offset + 16));
    if (FENCE_LINE.test(start)) inFence = !inFence;
    else if (!inFence && HEADING_LINE.test(start)) headings.push(text.slice(offset, end));
    offset = end + 1;
  }
  for (const heading of headings) for (const term of lexicalTokens(heading)) terms.push(term);
  return terms;
}
