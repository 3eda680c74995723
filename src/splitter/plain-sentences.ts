import { asciiClassTable, lazyClassTable } from "../util/plain-text.js";

// Unicode's sentence-break classes (UAX #29, table 4). Of the ASCII characters, those not named are Other; no ASCII
// character is OLetter, Extend or Format, and Sep's only ASCII members are CR and LF.
const OTHER = 0;
const SP = 1;
const LOWER = 2;
const UPPER = 3;
const NUMERIC = 4;
const ATERM = 5;
const STERM = 6;
const CLOSE = 7;
const SCONTINUE = 8;
const PARA_SEP = 9;
const O_LETTER = 10;

const CLASSES = asciiClassTable(OTHER, [
  [SP, "\t\v\f "],
  [PARA_SEP, "\r\n"],
  [LOWER, "abcdefghijklmnopqrstuvwxyz"],
  [UPPER, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"],
  [NUMERIC, "0123456789"],
  [ATERM, "."],
  [STERM, "!?"],
  [CLOSE, `"'()[]{}`],
  [SCONTINUE, ",-:;"],
]);
// The class of a plain character beyond ASCII (src/util/plain-text.ts), from its Unicode properties.
const plainClass = lazyClassTable((char) => {
  if (/[\u0085\u2028\u2029]/.test(char)) return PARA_SEP;
  if (/\p{White_Space}/u.test(char)) return SP;
  if (char === "\u2024") return ATERM;
  if (/\p{Sentence_Terminal}/u.test(char)) return STERM;
  if (/\p{Lowercase}/u.test(char)) return LOWER;
  if (/[\p{Uppercase}\p{Lt}]/u.test(char)) return UPPER;
  if (/\p{Alphabetic}/u.test(char)) return O_LETTER;
  if (/\p{Nd}/u.test(char)) return NUMERIC;
  if (/[\u2013\u2014]/.test(char)) return SCONTINUE;
  if (/[\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Quotation_Mark}]/u.test(char)) return CLOSE;
  return OTHER;
});
// Where a rule can end a sentence: a terminator (SB8–SB11) or a paragraph separator (SB4), the plain characters
// beyond ASCII among them included (the test of every plain character in context finds one left out).
const CANDIDATES = /[.!?\r\n\u2024\u2028\u2029\u203c\u203d\u2047-\u2049]/g;

/**
 * The ends of the sentences of `text.slice(start, end)`, a range of plain text (`isPlainText`), as offsets into
 * `text`: exactly what `Intl.Segmenter`'s sentence granularity gives for that range on its own (Unicode's rules
 * SB1–SB11, which ICU implements; a test holds the two equal on random and real text), without loading ICU or
 * copying the range into every segment. The last end is `end` (for a non-empty range).
 */
export function plainSentenceEnds(text: string, start: number, end: number): number[] {
  const ends: number[] = [];
  const classAt = (index: number) => {
    const code = text.charCodeAt(index);
    return code < 128 ? (CLASSES[code] as number) : plainClass(code);
  };
  let index = start;
  while (index < end) {
    CANDIDATES.lastIndex = index;
    const found = CANDIDATES.exec(text);
    if (found === null || found.index >= end) break;
    const at = found.index;
    const kind = classAt(at);
    if (kind === PARA_SEP) {
      // SB3, SB4: CR LF is one separator, and a sentence ends after it.
      index = at + (text.charCodeAt(at) === 13 && at + 1 < end && text.charCodeAt(at + 1) === 10 ? 2 : 1);
      ends.push(index);
      continue;
    }
    // SB9, SB10: the terminator keeps its closing marks and spaces; SB11: and one paragraph separator.
    let after = at + 1;
    while (after < end && classAt(after) === CLOSE) after++;
    while (after < end && classAt(after) === SP) after++;
    if (after < end && classAt(after) === PARA_SEP) {
      after += text.charCodeAt(after) === 13 && after + 1 < end && text.charCodeAt(after + 1) === 10 ? 2 : 1;
      ends.push(after);
      index = after;
      continue;
    }
    index = after;
    if (after >= end) break;
    if (!endsHere(at, after, kind, start, end, classAt)) continue;
    ends.push(after);
  }
  if (end > start && ends[ends.length - 1] !== end) ends.push(end);
  return ends;
}

/** Whether a sentence ends at `after`, behind the terminator at `at` and its closing marks and spaces (SB6–SB8a). */
function endsHere(
  at: number,
  after: number,
  kind: number,
  start: number,
  end: number,
  classAt: (index: number) => number,
): boolean {
  const next = classAt(after);
  if (kind === ATERM && after === at + 1) {
    // SB6: "3.14"; SB7: "U.S" (a letter, the full stop, a capital).
    if (next === NUMERIC) return false;
    if (next === UPPER && at > start) {
      const before = classAt(at - 1);
      if (before === UPPER || before === LOWER) return false;
    }
  }
  // SB8a: a comma, colon, dash or another terminator continues the sentence.
  if (next === SCONTINUE || next === ATERM || next === STERM) return false;
  if (kind === ATERM) {
    // SB8: after a full stop, a lower-case letter before any other letter or terminator continues it ("e.g. (1) x").
    for (let index = after; index < end; index++) {
      const kindAt = classAt(index);
      if (kindAt === LOWER) return false;
      if (
        kindAt === UPPER ||
        kindAt === O_LETTER ||
        kindAt === PARA_SEP ||
        kindAt === ATERM ||
        kindAt === STERM
      )
        break;
    }
  }
  return true;
}
