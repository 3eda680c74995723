import { asciiClassTable, isPlainText, lazyClassTable } from "./plain-text.js";

let segmenter: Intl.Segmenter | undefined;

/**
 * The shared English word segmenter (Unicode word boundaries, UAX #29), built on first use: constructing an
 * `Intl.Segmenter` loads ICU break-iterator data (~10 ms, once a process), which would otherwise cost every
 * `import("ragsynth")`.
 */
export function wordSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter("en", { granularity: "word" });
  return segmenter;
}

/** A word segment: the text and whether it is a word (letters, digits), as `Intl.Segmenter` reports it. */
export interface WordSegment {
  segment: string;
  isWordLike: boolean;
}

/**
 * The word segments of `text`, as {@link wordSegmenter} gives them; plain text (`isPlainText`: ASCII and the common
 * characters of European languages and technical text) is segmented by {@link plainWordSegments} without building
 * the segmenter.
 */
export function wordSegments(text: string): Iterable<WordSegment> {
  if (isPlainText(text)) return plainWordSegments(text);
  return Array.from(wordSegmenter().segment(text), ({ segment, isWordLike }) => ({
    segment,
    isWordLike: Boolean(isWordLike),
  }));
}

// Unicode's word-break classes (UAX #29, table 3). Of the ASCII characters, those not named are Other; ASCII has no
// Extend, Format, Katakana, Hebrew_Letter or Regional_Indicator character, and neither has the rest of plain text.
const OTHER = 0;
const CR = 1;
const LF = 2;
const NEWLINE = 3;
const A_LETTER = 4;
const NUMERIC = 5;
const MID_LETTER = 6;
const MID_NUM = 7;
const MID_NUM_LET_Q = 8; // MidNumLet and Single_Quote, which the rules only ever name together
const EXTEND_NUM_LET = 9;
const W_SEG_SPACE = 10;
const OUTSIDE = -1;

const CLASSES = asciiClassTable(OTHER, [
  [CR, "\r"],
  [LF, "\n"],
  [NEWLINE, "\v\f"],
  [A_LETTER, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"],
  [NUMERIC, "0123456789"],
  [MID_LETTER, ":"],
  [MID_NUM, ",;"],
  [MID_NUM_LET_Q, ".'"],
  [EXTEND_NUM_LET, "_"],
  [W_SEG_SPACE, " "],
]);

// The class of a plain character beyond ASCII (src/util/plain-text.ts), from its Unicode properties.
const plainClass = lazyClassTable((char) => {
  if (/[\u0085\u2028\u2029]/.test(char)) return NEWLINE;
  if (/[\u1680\u2000-\u2006\u2008-\u200a\u205f\u3000]/.test(char)) return W_SEG_SPACE;
  if (/[\u00b7\u0387\u2027]/.test(char)) return MID_LETTER;
  if (/[\u2018\u2019\u2024]/.test(char)) return MID_NUM_LET_Q;
  if (/[\u202f\u203f\u2040\u2054]/.test(char)) return EXTEND_NUM_LET;
  if (/\p{Nd}/u.test(char)) return NUMERIC;
  if (/\p{Alphabetic}/u.test(char)) return A_LETTER;
  return OTHER;
});

/**
 * The word segments of plain `text` (`isPlainText`), exactly as `Intl.Segmenter`'s word granularity gives them
 * (Unicode's rules WB3–WB13b, which ICU implements; a test holds the two equal on random and real text). A segment
 * is word-like when it holds a letter or digit, or is a run of connectors such as `__` (ICU's rule status; a single
 * `_` is not).
 */
export function plainWordSegments(text: string): WordSegment[] {
  const classAt = (index: number) => {
    if (index < 0 || index >= text.length) return OUTSIDE;
    const code = text.charCodeAt(index);
    return code < 128 ? (CLASSES[code] as number) : plainClass(code);
  };
  const segments: WordSegment[] = [];
  let start = 0;
  let hasWord = false;
  for (let index = 0; index < text.length; index++) {
    if (index > start && wordBreakBefore(index, classAt)) {
      segments.push({
        segment: text.slice(start, index),
        isWordLike: hasWord || connectors(start, index, classAt),
      });
      start = index;
      hasWord = false;
    }
    const kind = classAt(index);
    hasWord ||= kind === A_LETTER || kind === NUMERIC;
  }
  if (text.length > 0)
    segments.push({
      segment: text.slice(start),
      isWordLike: hasWord || connectors(start, text.length, classAt),
    });
  return segments;
}

/** Whether `[start, end)` is two or more connectors (ExtendNumLet), which ICU counts as a word. */
function connectors(start: number, end: number, classAt: (index: number) => number): boolean {
  return end - start > 1 && classAt(start) === EXTEND_NUM_LET;
}

/** Whether a word boundary lies between `index - 1` and `index`. */
function wordBreakBefore(index: number, classAt: (index: number) => number): boolean {
  const before = classAt(index - 1);
  const after = classAt(index);
  if (before === CR && after === LF) return false; // WB3
  if (before === CR || before === LF || before === NEWLINE) return true; // WB3a
  if (after === CR || after === LF || after === NEWLINE) return true; // WB3b
  if (before === W_SEG_SPACE && after === W_SEG_SPACE) return false; // WB3d
  const letterOrDigit = (kind: number) => kind === A_LETTER || kind === NUMERIC;
  if (letterOrDigit(before) && letterOrDigit(after)) return false; // WB5, WB8, WB9, WB10
  const midLetter = (kind: number) => kind === MID_LETTER || kind === MID_NUM_LET_Q;
  const midNum = (kind: number) => kind === MID_NUM || kind === MID_NUM_LET_Q;
  if (before === A_LETTER && midLetter(after) && classAt(index + 1) === A_LETTER) return false; // WB6
  if (classAt(index - 2) === A_LETTER && midLetter(before) && after === A_LETTER) return false; // WB7
  if (classAt(index - 2) === NUMERIC && midNum(before) && after === NUMERIC) return false; // WB11
  if (before === NUMERIC && midNum(after) && classAt(index + 1) === NUMERIC) return false; // WB12
  if ((letterOrDigit(before) || before === EXTEND_NUM_LET) && after === EXTEND_NUM_LET) return false; // WB13a
  if (before === EXTEND_NUM_LET && letterOrDigit(after)) return false; // WB13b
  return true; // WB999
}
