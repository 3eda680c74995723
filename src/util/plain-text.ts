import { isAscii } from "./is-ascii.js";

// Beyond ASCII, the characters whose Unicode sentence- and word-break classes the hand-written segmenters derive
// from their general properties (src/splitter/plain-sentences.ts, src/util/word-segmenter.ts): Latin-1 and Latin
// Extended-A, the Greek and basic Cyrillic letters, general punctuation (dashes, typographic quotes, bullets,
// ellipsis), currency, letterlike symbols, arrows, mathematical operators, box drawing and geometric shapes.
// Their tests hold every one of them to ICU's classes. Left to ICU: marks, format characters (the soft hyphen),
// unassigned and private-use code points, and U+00B8 and U+2044, which ICU's word rules join words across.
const RANGES: readonly (readonly [number, number])[] = [
  [0xa0, 0x17f],
  [0x391, 0x3c9],
  [0x400, 0x45f],
  [0x2010, 0x205e],
  [0x20a0, 0x20c0],
  [0x2100, 0x214f],
  [0x2190, 0x22ff],
  [0x2500, 0x25ff],
];
const LEFT_TO_ICU = /[\p{Cn}\p{Cf}\p{M}\p{Co}\u00b8\u2044]/u;

let notPlain: RegExp | undefined;

/**
 * A character that is not plain: one class of the plain runs, without Unicode property escapes (a `u` regular
 * expression with them tested each character of a long paragraph several times slower). Built on first use
 * (~1,200 property tests), by the first text beyond ASCII a process meets.
 */
function notPlainPattern(): RegExp {
  if (notPlain) return notPlain;
  const hex = (code: number) => `\\u${code.toString(16).padStart(4, "0")}`;
  let runs = "\\x00-\\x7f";
  for (const [first, last] of RANGES) {
    let start: number | undefined;
    for (let code = first; code <= last + 1; code++) {
      const plain = code <= last && !LEFT_TO_ICU.test(String.fromCharCode(code));
      if (plain && start === undefined) start = code;
      if (!plain && start !== undefined) {
        runs += start === code - 1 ? hex(start) : `${hex(start)}-${hex(code - 1)}`;
        start = undefined;
      }
    }
  }
  notPlain = new RegExp(`[^${runs}]`);
  return notPlain;
}

/** Code points below this one may be plain; a table of classes indexed by code point needs this many entries. */
export const PLAIN_CODE_END = 0x2600;

/**
 * Whether every character of `text` is plain: ASCII or one of the characters above, which text in European
 * languages and technical documents is made of. Such text is segmented into sentences and words without ICU.
 */
export function isPlainText(text: string): boolean {
  return isAscii(text) || !notPlainPattern().test(text);
}

/**
 * A table of one class per plain code point, each found by `classOf` on first use (the characters a process meets
 * are few; deriving all ~1,200 up front would cost every process that meets one).
 */
export function lazyClassTable(classOf: (char: string) => number): (code: number) => number {
  const classes = new Int8Array(PLAIN_CODE_END).fill(-1);
  return (code) => {
    let kind = classes[code] as number;
    if (kind < 0) {
      kind = classOf(String.fromCharCode(code));
      classes[code] = kind;
    }
    return kind;
  };
}

/** A table of the 128 ASCII characters' classes: `Other` for those no entry names. */
export function asciiClassTable(
  other: number,
  entries: readonly (readonly [kind: number, chars: string])[],
): Int8Array {
  const classes = new Int8Array(128).fill(other);
  for (const [kind, chars] of entries) for (const char of chars) classes[char.charCodeAt(0)] = kind;
  return classes;
}
