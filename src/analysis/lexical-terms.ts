import { textWindowSlices } from "../util/text-windows.js";
import { wordSegmenter } from "../util/word-segmenter.js";
import { CJK_RUN, DICTIONARY_SCRIPT, UAX29_WORD } from "./words.js";

/** Options of {@link lexicalTerms}. */
export interface LexicalTermsOptions {
  /** Drop common English, Chinese and Japanese function words. @default true */
  stopWords?: boolean | undefined;
  /** Strip English plural endings (Harman's S-stemmer) and possessive `'s`. @default true */
  stemming?: boolean | undefined;
}

/** Marks a CJK character bigram, so it never collides with the word of the same spelling. */
export const BIGRAM_PREFIX = "\u0001";

// biome-ignore format: a word list reads better packed
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at", "be",
  "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did",
  "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have",
  "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in",
  "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not",
  "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over",
  "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
  "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
  "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
  "whose", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
  "的", "了", "是", "在", "和", "与", "及", "或", "也", "都", "就", "而", "吗", "呢", "吧", "啊", "呀",
  "么", "着", "过", "之", "其", "这", "那", "哪", "谁", "什么", "哪里", "哪个", "怎么", "怎样", "如何",
  "为什么", "这个", "那个", "一个", "我", "你", "他", "她", "它", "我们", "你们", "他们", "请", "问",
  "は", "の", "が", "を", "に", "で", "と", "も", "へ", "か", "です", "ます", "した", "する", "ある", "いる",
]);

// Particles so frequent that a bigram containing one is noise; content characters such as 都 (首都) stay.
// biome-ignore format: a word list reads better packed
const PARTICLES = new Set(["的", "了", "是", "吗", "呢", "吧", "啊", "呀", "は", "の", "が", "を", "に", "で", "と", "も", "へ", "か"]);

const ONLY_UNDERSCORES = /^_+$/;
const LATIN_WORD = /^[a-z]+$/;

/**
 * The lexical terms of a text: lowercased words as `Intl.Segmenter` finds them (it splits the Chinese,
 * Japanese and Thai runs; a UAX #29 pattern finds the rest, the same words, faster), plus character bigrams of Chinese, Japanese and Korean runs (skipping those with a particle such as 的), which keep Chinese matching robust when
 * the segmenter splits a query and a passage differently. Bigrams start with {@link BIGRAM_PREFIX}.
 * Linear time: the text is segmented in windows of at most 2,048 characters cut at whitespace or CJK
 * punctuation; a longer run without either is cut anyway, losing the word across the cut.
 */
export function lexicalTerms(text: string, { stopWords = true, stemming = true }: LexicalTermsOptions = {}) {
  const terms: string[] = [];
  // Windows cut at whitespace or CJK punctuation keep the segmenter linear (see splitter/sentences.ts).
  for (const window of textWindowSlices(text.normalize("NFKC").toLowerCase())) {
    pushWords(terms, window, stopWords, stemming);
    pushBigrams(terms, window, stopWords);
  }
  return terms;
}

function pushWords(terms: string[], text: string, stopWords: boolean, stemming: boolean): void {
  const push = (segment: string) => {
    const word = stemming ? stem(segment) : segment;
    if (stopWords && (STOP_WORDS.has(word) || STOP_WORDS.has(segment))) return;
    terms.push(word);
  };
  for (const [match] of text.matchAll(UAX29_WORD)) {
    if (ONLY_UNDERSCORES.test(match)) continue;
    if (!DICTIONARY_SCRIPT.test(match)) {
      push(match);
      continue;
    }
    // Scripts written without spaces need ICU's dictionary to find their words.
    for (const { segment, isWordLike } of wordSegmenter().segment(match)) if (isWordLike) push(segment);
  }
}

function pushBigrams(terms: string[], text: string, stopWords: boolean): void {
  for (const [run] of text.matchAll(CJK_RUN)) {
    const characters = Array.from(run);
    for (let i = 0; i + 1 < characters.length; i++) {
      const first = characters[i] as string;
      const second = characters[i + 1] as string;
      const bigram = first + second;
      if (stopWords && (PARTICLES.has(first) || PARTICLES.has(second) || STOP_WORDS.has(bigram))) continue;
      terms.push(BIGRAM_PREFIX + bigram);
    }
  }
}

/**
 * Harman's S-stemmer on a lowercase Latin word (possessive `'s` dropped first); other words pass unchanged. Its
 * `-ies` → `-y` rule (`libraries` → `library`) would split a word ending in `-ie` from its plural (`cookies` →
 * `cooky`, `cookie` unchanged), so a singular `-ie` ends in `-y` too (`cookie` → `cooky`).
 */
export function stem(word: string): string {
  let result = word.replace(/['’]s$/, "");
  if (result.length >= 3 && result.endsWith("ie") && LATIN_WORD.test(result))
    return `${result.slice(0, -2)}y`;
  if (result.length <= 3 || !LATIN_WORD.test(result)) return result;
  if (result.endsWith("ies") && !result.endsWith("eies") && !result.endsWith("aies")) {
    result = `${result.slice(0, -3)}y`;
  } else if (result.endsWith("es") && !/(?:aes|ees|oes)$/.test(result)) {
    result = result.slice(0, -1);
  } else if (result.endsWith("s") && !result.endsWith("us") && !result.endsWith("ss")) {
    result = result.slice(0, -1);
  }
  return result;
}
