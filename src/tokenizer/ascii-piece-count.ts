// The token count of an ASCII piece, by byte-pair merges over the encoding's own rank table, on strings.
//
// gpt-tokenizer's count merges a piece's UTF-8 bytes: every candidate pair is a Uint8Array view turned back into
// a string (a UTF-8 check and a TextDecoder call) before its rank is looked up. For ASCII text a byte is a
// character, so the same merges run on slices of the string give the same tokens without either step: about half
// the cost of counting a piece not seen before (on a first index, most of the splitter's BPE time). Any other
// piece, and any encoding whose table is not laid out as expected, is counted by gpt-tokenizer as before.

import { isAscii } from "../util/is-ascii.js";

/** The part of gpt-tokenizer's encoding this reads: its map from token text to rank (its merge priority). */
interface RankTableHolder {
  bytePairEncodingCoreProcessor?: { bytePairStringRankEncoder?: unknown };
  default?: RankTableHolder;
}

/**
 * A counter of ASCII text for the encoding `module` (a gpt-tokenizer encoding module or object) with split
 * pattern `pattern` (global), or undefined when its rank table cannot be found or its counts disagree with
 * `countTokens` on a few checked texts. The counter returns undefined for text holding a non-ASCII character.
 */
export function asciiPieceCounter(
  module: unknown,
  pattern: RegExp,
  countTokens: (text: string) => number,
): ((text: string) => number | undefined) | undefined {
  const ranks = rankMapOf(module);
  if (ranks === undefined) return undefined;
  const counter = asciiCounter(mapRanks(ranks), pattern);
  return agreesOnProbes(counter, countTokens) ? counter : undefined;
}

/** The encoding's map from token text to rank in a gpt-tokenizer encoding module or object, if found there. */
export function rankMapOf(module: unknown): Map<string, number> | undefined {
  const holder = module as RankTableHolder | undefined;
  const ranks =
    holder?.bytePairEncodingCoreProcessor?.bytePairStringRankEncoder ??
    holder?.default?.bytePairEncodingCoreProcessor?.bytePairStringRankEncoder;
  return ranks instanceof Map ? (ranks as Map<string, number>) : undefined;
}

/** A counter of ASCII text over `ranks` with split pattern `pattern` (global); undefined for non-ASCII text. */
export function asciiCounter(ranks: AsciiRanks, pattern: RegExp): (text: string) => number | undefined {
  return (text) => countAscii(text, pattern, ranks);
}

/** Whether `counter` gives `countTokens`' counts on texts that exercise merges, ties, digits and whitespace. */
export function agreesOnProbes(
  counter: (text: string) => number | undefined,
  countTokens: (text: string) => number,
): boolean {
  return PROBES.every((probe) => counter(probe) === countTokens(probe));
}

// Texts whose counts must agree before the counter is trusted: merges, a tie, rare words, digits, whitespace runs.
const PROBES = [
  "hello world",
  "internationalization",
  "zxqvbnmlkj",
  "keepAliveTimeout=30000",
  "    \n\n\t",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  "https://example.org/a_b-c.d?e=f",
];

/**
 * The ranks the merges read: of a slice of an ASCII piece (Infinity: not a token), and of every two-character
 * ASCII token by `first * 128 + second` (-1: none), a third of the look-ups, read from an array.
 */
export interface AsciiRanks {
  rank(piece: string, start: number, end: number): number;
  readonly pairs: Int32Array;
}

/** {@link AsciiRanks} over the encoding's own map. */
function mapRanks(ranks: Map<string, number>): AsciiRanks {
  const pairs = new Int32Array(128 * 128).fill(-1);
  for (let first = 0; first < 128; first++) {
    for (let second = 0; second < 128; second++) {
      const rank = ranks.get(String.fromCharCode(first, second));
      if (rank !== undefined) pairs[first * 128 + second] = rank;
    }
  }
  return {
    pairs,
    rank: (piece, start, end) =>
      ranks.get(start === 0 && end === piece.length ? piece : piece.slice(start, end)) ??
      Number.POSITIVE_INFINITY,
  };
}

function countAscii(text: string, pattern: RegExp, table: AsciiRanks): number | undefined {
  if (!isAscii(text)) return undefined;
  let tokens = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const piece = match[0];
    tokens +=
      piece.length === 1 || table.rank(piece, 0, piece.length) !== Number.POSITIVE_INFINITY
        ? 1
        : mergedTokens(piece, table);
  }
  return tokens;
}

/**
 * The number of tokens byte-pair merging leaves of `piece` (ASCII, so one character is one byte): the adjacent
 * pair of parts with the lowest rank is merged, the leftmost on a tie, until no pair is in the table.
 */
function mergedTokens(piece: string, table: AsciiRanks): number {
  // starts[i]: where part i begins; rank[i]: the rank of parts i and i + 1 merged (Infinity: not a token).
  const starts: number[] = [];
  const rank: number[] = [];
  for (let index = 0; index <= piece.length; index++) {
    starts.push(index);
    const pair =
      index < piece.length - 1
        ? (table.pairs[piece.charCodeAt(index) * 128 + piece.charCodeAt(index + 1)] as number)
        : -1;
    rank.push(pair < 0 ? Number.POSITIVE_INFINITY : pair);
  }
  while (starts.length > 1) {
    let lowest = Number.POSITIVE_INFINITY;
    let at = -1;
    for (let index = 0; index < rank.length - 1; index++) {
      const candidate = rank[index] as number;
      if (candidate < lowest) {
        lowest = candidate;
        at = index;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    rank.splice(at, 1);
    rank[at] = pairRank(piece, starts, at, table);
    if (at > 0) rank[at - 1] = pairRank(piece, starts, at - 1, table);
  }
  return starts.length - 1;
}

function pairRank(piece: string, starts: readonly number[], index: number, table: AsciiRanks): number {
  const end = starts[index + 2];
  return end === undefined ? Number.POSITIVE_INFINITY : table.rank(piece, starts[index] as number, end);
}
