import { isTokenizerName, resolveTokenizer } from "./resolve-tokenizer.js";
import { isWhitespace } from "./text-boundaries.js";
import type { Tokenizer } from "./tokenizer.js";

/**
 * Where a built-in encoding's count of `before + joiner + after…` (the joiner one or more line breaks) is the sum of
 * two counts: cut after the joiner (`"after"`: count(before + joiner) + count(after…)) or before it (`"before"`).
 * `allows` says whether the cut is exact for the two texts around the joiner.
 */
export interface LineBreakCut {
  readonly side: "before" | "after";
  allows(before: string, after: string): boolean;
}

// Why these cuts are exact (gpt-tokenizer's split patterns, matched left to right, no lookbehind, so the pieces
// from a piece start on are those of the rest of the text alone):
// - cl100k_base / o200k_base: a piece holds a line break only as whitespace (`\s*[\r\n]`, `\s+$`, `\s+(?!\S)`, …)
//   or as the run of `[\r\n]*` (o200k: `[\r\n/]*`) after punctuation; no piece starts with one and goes on into
//   letters. Before a character that is neither whitespace (nor, for o200k, `/`), every such piece ends at that
//   character, and the pieces before it are those of the text up to it alone (`\s+$` there gives the same span
//   as `\s*[\r\n]` does inside the text). `.\n\n` is one piece, so the cut cannot come before the joiner.
// - r50k_base: a line break is only ever in a whitespace piece, and no piece runs from a non-whitespace
//   character into whitespace (` ?` takes a space only at a piece's start); after a non-whitespace character a
//   piece ends before the joiner. `\n\nX` is cut `\n`, `\n` there but `\n\n` at the end of a text, so the cut
//   cannot come after it.
//   The same holds when the text after the joiner starts with whitespace that holds no line break (an indented
//   paragraph: a changelog's entries, a quoted block) before its first other character: `\s*[\r\n]+` is tried
//   before `\s+(?!\S)` and ends at the joiner's last line break, and what follows is split as it is alone. A line
//   break in that run would join the joiner's piece (`\n\n  \n`), so it is not allowed. Without this, packing such
//   paragraphs counted every candidate chunk whole: 60% of indexing a 6.7 MB changelog (libharfbuzz's).
// The property test in line-break-cut.test.ts checks both against whole-text counts.
const AFTER_NON_SPACE: LineBreakCut = {
  side: "after",
  allows: (_before, after) => startsClear(after, false),
};
const AFTER_NON_SPACE_OR_SLASH: LineBreakCut = {
  side: "after",
  allows: (_before, after) => startsClear(after, true),
};

/**
 * Whether `after` starts with a character other than whitespace (not `/` when `slash` is true), or with
 * whitespace holding no line break (`\r`, `\n`) before such a character (any, `/` included).
 */
function startsClear(after: string, slash: boolean): boolean {
  let index = 0;
  for (; index < after.length; index++) {
    const code = after.charCodeAt(index);
    if (!isWhitespace(code)) break;
    if (code === 10 || code === 13) return false;
  }
  if (index === after.length) return false;
  return index > 0 || !slash || after.charCodeAt(0) !== 47;
}
const BEFORE_AFTER_NON_SPACE: LineBreakCut = {
  side: "before",
  allows: (before) => before.length > 0 && !isWhitespace(before.charCodeAt(before.length - 1)),
};

/** The exact line-break cut of a built-in encoding; undefined for any other tokenizer (nothing is known of it). */
export function lineBreakCut(tokenizer: Tokenizer): LineBreakCut | undefined {
  const { name } = tokenizer;
  if (!isTokenizerName(name) || resolveTokenizer(name) !== tokenizer) return undefined;
  if (name === "cl100k_base") return AFTER_NON_SPACE;
  if (name === "o200k_base") return AFTER_NON_SPACE_OR_SLASH;
  return BEFORE_AFTER_NON_SPACE;
}
