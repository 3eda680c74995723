import { isAscii } from "./is-ascii.js";

// Beyond ASCII, the characters whose Unicode sentence- and word-break classes the hand-written segmenters derive
// from their general properties (src/splitter/plain-sentences.ts, src/util/word-segmenter.ts): Latin-1 and Latin
// Extended-A, the Greek and basic Cyrillic letters, general punctuation (dashes, typographic quotes, bullets,
// ellipsis), currency, letterlike symbols, arrows, mathematical operators, box drawing and geometric shapes.
// Their tests hold every one of them to ICU's classes. Left to ICU: marks, format characters (the soft hyphen),
// unassigned and private-use code points, and U+00B8 and U+2044, which ICU's word rules join words across.
const RANGES =
  "\\u00a0-\\u017f\\u0391-\\u03c9\\u0400-\\u045f\\u2010-\\u205e\\u20a0-\\u20c0\\u2100-\\u214f\\u2190-\\u22ff\\u2500-\\u25ff";
const NOT_PLAIN = new RegExp(`[^\\x00-\\x7f${RANGES}]|[\\p{Cn}\\p{Cf}\\p{M}\\p{Co}\\u00b8\\u2044]`, "u");

/** Code points below this one may be plain; a table of classes indexed by code point needs this many entries. */
export const PLAIN_CODE_END = 0x2600;

/**
 * Whether every character of `text` is plain: ASCII or one of the characters above, which text in European
 * languages and technical documents is made of. Such text is segmented into sentences and words without ICU.
 */
export function isPlainText(text: string): boolean {
  return isAscii(text) || !NOT_PLAIN.test(text);
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
