import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { isPlainText } from "../util/plain-text.js";
import { plainSentenceEnds } from "./plain-sentences.js";
/** Options of {@link splitSentences}. */
export interface SplitSentencesOptions {
  /** The BCP 47 locale handed to `Intl.Segmenter`. ICU's sentence rules barely depend on it. @default "en" */
  locale?: string;
  /**
   * Trim each sentence and drop the ones that are only whitespace. Use this when the sentences are
   * joined again with `" "` (as SentenceEmbeddingOptimizer does). @default false
   */
  trim?: boolean;
}

// Intl.Segmenter copies its whole input into every segment it returns, so one call over n characters
// with s sentences costs O(n·s). Segmenting windows of ~2K characters keeps the total linear.
const WINDOW = 2048;
// A run this long without any sentence break is cut at its last whitespace (or anywhere) and emitted.
const MAX_SENTENCE = 32_768;

// Abbreviations that almost never end an English sentence. ICU (as shipped in V8, without its
// suppression lists) breaks after "Mr. " or "e.g. " when a capital letter follows; those breaks are
// undone. Left out on purpose: words that often end a sentence ("etc.", "a.m.", "Inc.", "No.") and
// the ones only ever followed by a number ("Fig. 3", "p. 12"), where ICU does not break anyway.
// Case-sensitive, so the words "no." or "dr." written in lower case are not matched.
// biome-ignore format: a word list reads best packed
const ABBREVIATIONS = new Set([
  "Mr.", "Mrs.", "Ms.", "Mx.", "Dr.", "Prof.", "Rev.", "Hon.", "St.", "Mt.", "Ft.", "Gen.", "Col.",
  "Capt.", "Lt.", "Sgt.", "Gov.", "Sen.", "Rep.", "Pres.", "Fr.", "Messrs.",
  "e.g.", "E.g.", "i.e.", "I.e.", "cf.", "Cf.", "vs.", "viz.", "approx.", "incl.", "esp.",
]);
// Single initials ("J. K. Rowling") and dotted capital initialisms ("U.S.", "U.K.", "U.N.").
const INITIALS = /^(?:\p{Lu}\.)+$/u;
// A blank line: a newline, optional non-newline whitespace, another newline, and any whitespace after.
const BLANK_LINE = /\n[^\S\n]*\n\s*/g;

const segmenters = new Map<string, Intl.Segmenter>();

/**
 * Splits text into sentences by Unicode's sentence rules as the built-in `Intl.Segmenter` (ICU) applies them,
 * which handles English, Chinese `。！？` and most scripts without a model download. Paragraphs of plain text
 * (Latin, Greek and Cyrillic letters, digits and common punctuation) are segmented by a hand-written reading of
 * the same rules, with the same result, without loading ICU.
 *
 * - Lossless: without `trim`, `splitSentences(text).join("") === text`. Each sentence keeps the
 *   whitespace that follows it, as LlamaIndex's punkt-based splitter does.
 * - Blank lines always end a sentence. A single line break does not (ICU alone would break at
 *   every line end, which shreds hard-wrapped text); punkt behaves the same way.
 * - Breaks after common abbreviations and initials (`Mr.`, `Dr.`, `e.g.`, `J.`, `U.S.`) are
 *   undone. As a consequence, a sentence that really ends in `U.S.` is joined to the next one.
 * - Linear time: text is segmented per paragraph, in windows of ~2K characters. A run of more than
 *   32K characters without a sentence break is cut at whitespace.
 *
 * Deliberate difference from LlamaIndex: punkt (NLTK) is replaced by ICU, so borderline cases
 * (abbreviations not in the list, unusual punctuation) can split differently.
 *
 * @example
 * splitSentences("Mr. Smith arrived. 他来了。"); // ["Mr. Smith arrived. ", "他来了。"]
 */
export function splitSentences(text: string, options: SplitSentencesOptions = {}): string[] {
  checkString("text", text);
  const { locale = "en", trim = false } = optionsOf("options", options, "{ locale?, trim? }");
  checkLocale(locale);
  const segmenter = () => getSegmenter(locale);
  const sentences: string[] = [];
  let paragraphStart = 0;
  for (const match of text.matchAll(BLANK_LINE)) {
    const end = match.index + match[0].length;
    // A blank line at the very start is leading whitespace, kept with the first sentence.
    if (text.slice(paragraphStart, match.index).trim() === "") continue;
    pushParagraph(sentences, text.slice(paragraphStart, end), segmenter);
    paragraphStart = end;
  }
  if (paragraphStart < text.length) pushParagraph(sentences, text.slice(paragraphStart), segmenter);
  if (!trim) return sentences;
  return sentences.map((sentence) => sentence.trim()).filter((sentence) => sentence !== "");
}

const checkedLocales = new Set<string>(["en"]);

/** Checks a locale without building a segmenter, which only text that is not plain needs (building one loads ICU). */
function checkLocale(locale: unknown): void {
  if (typeof locale === "string" && checkedLocales.has(locale)) return;
  try {
    if (typeof locale !== "string") throw new TypeError("not a string");
    Intl.getCanonicalLocales(locale);
  } catch (error) {
    throw new InvalidArgumentError({
      parameter: "options.locale",
      value: locale,
      expected: "be a BCP 47 language tag",
      hint: 'Pass one such as "en" or "zh-Hans", or leave it out.',
      cause: error,
    });
  }
  checkedLocales.add(locale);
}

function getSegmenter(locale: string): Intl.Segmenter {
  let segmenter = segmenters.get(locale);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: "sentence" });
    segmenters.set(locale, segmenter);
  }
  return segmenter;
}

/**
 * Appends the sentences of one paragraph, with abbreviation breaks merged back. A paragraph of plain text (ASCII and
 * the common characters of European languages and technical text: `isPlainText`) is segmented by
 * {@link plainSentenceEnds}, which gives what ICU gives there, 3–6× faster and without loading ICU's data (~10 ms,
 * once a process).
 */
function pushParagraph(sentences: string[], paragraph: string, segmenter: () => Intl.Segmenter): void {
  // Line breaks become spaces of the same length, so indices into `shadow` are indices into `paragraph`.
  const shadow = paragraph.replace(/[\r\n]/g, " ");
  const windowEnds = isPlainText(shadow)
    ? (start: number, end: number) => plainSentenceEnds(shadow, start, end)
    : icuSentenceEnds(shadow, segmenter());
  let sentenceStart = 0;
  for (const [, end] of segmentBounds(shadow, windowEnds)) {
    if (
      end < paragraph.length &&
      endsWithAbbreviation(paragraph.slice(Math.max(sentenceStart, end - 48), end))
    ) {
      continue;
    }
    sentences.push(paragraph.slice(sentenceStart, end));
    sentenceStart = end;
  }
}

/** The ends of the sentences of `text.slice(start, end)` on its own, as offsets into `text`, by ICU's rules. */
function icuSentenceEnds(text: string, segmenter: Intl.Segmenter): (start: number, end: number) => number[] {
  return (start, end) => {
    const ends: number[] = [];
    for (const { index, segment } of segmenter.segment(text.slice(start, end)))
      ends.push(start + index + segment.length);
    return ends;
  };
}

/**
 * Yields `[start, end)` of each sentence, segmenting bounded windows so the cost stays linear. `windowEnds` gives the
 * sentence ends of one window as if it were the whole text.
 */
function* segmentBounds(
  text: string,
  windowEnds: (start: number, end: number) => number[],
): Generator<[number, number]> {
  let position = 0;
  let window = WINDOW;
  while (position < text.length) {
    const end = Math.min(text.length, position + window);
    const isLast = end === text.length;
    const windowStart = position;
    let segmentStart = windowStart;
    for (const segmentEnd of windowEnds(windowStart, end)) {
      // The segment that touches the window's end may continue past it: segment it again next round.
      if (segmentEnd === end && !isLast) break;
      yield [segmentStart, segmentEnd];
      segmentStart = segmentEnd;
      position = segmentEnd;
      // A grown window holds one long sentence; stop after it so later windows are small again.
      if (window > WINDOW) break;
    }
    if (position > windowStart) {
      window = WINDOW;
    } else if (window < MAX_SENTENCE) {
      window *= 2;
    } else {
      position = cutPoint(text, windowStart, end);
      yield [windowStart, position];
    }
  }
}

/** Where to cut an over-long run: after its last whitespace, else at the end, never inside a surrogate pair. */
function cutPoint(text: string, start: number, end: number): number {
  for (let index = end - 1; index > start; index--) {
    if (/\s/.test(text[index] as string)) return index + 1;
  }
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff && end - 1 > start ? end - 1 : end;
}

/** Whether `tail`, the last few dozen characters of a sentence, ends with an abbreviation. */
function endsWithAbbreviation(tail: string): boolean {
  const trimmed = tail.trimEnd();
  if (!trimmed.endsWith(".")) return false;
  const word = trimmed.slice(trimmed.search(/\S+$/));
  // Opening brackets and quotes do not count: "(e.g." and "“Mr." are still abbreviations.
  const bare = word.replace(/^[\p{Ps}\p{Pi}"']+/u, "");
  return ABBREVIATIONS.has(bare) || INITIALS.test(bare);
}
