// The token count of an ASCII piece, by byte-pair merges over the encoding's own rank table, on strings.
//
// gpt-tokenizer's count merges a piece's UTF-8 bytes: every candidate pair is a Uint8Array view turned back into
// a string (a UTF-8 check and a TextDecoder call) before its rank is looked up. For ASCII text a byte is a
// character, so the same merges run on slices of the string give the same tokens without either step: about half
// the cost of counting a piece not seen before (on a first index, most of the splitter's BPE time). Any other
// piece, and any encoding whose table is not laid out as expected, is counted by gpt-tokenizer as before.

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
  const holder = module as RankTableHolder | undefined;
  const ranks =
    holder?.bytePairEncodingCoreProcessor?.bytePairStringRankEncoder ??
    holder?.default?.bytePairEncodingCoreProcessor?.bytePairStringRankEncoder;
  if (!(ranks instanceof Map)) return undefined;
  const table = { ranks: ranks as Map<string, number>, pairs: pairRanks(ranks as Map<string, number>) };
  const counter = (text: string) => countAscii(text, pattern, table);
  for (const probe of PROBES) if (counter(probe) !== countTokens(probe)) return undefined;
  return counter;
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

/** The rank table, and the ranks of its two-character ASCII tokens by `first * 128 + second` (-1: none). */
interface Ranks {
  ranks: Map<string, number>;
  pairs: Int32Array;
}

// Every merge starts from the pairs of neighbouring characters: a third of the rank look-ups, read from an array
// instead of the table's map of ~100,000 strings.
function pairRanks(ranks: Map<string, number>): Int32Array {
  const pairs = new Int32Array(128 * 128).fill(-1);
  for (let first = 0; first < 128; first++) {
    for (let second = 0; second < 128; second++) {
      const rank = ranks.get(String.fromCharCode(first, second));
      if (rank !== undefined) pairs[first * 128 + second] = rank;
    }
  }
  return pairs;
}

function countAscii(text: string, pattern: RegExp, table: Ranks): number | undefined {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 127) return undefined;
  let tokens = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const piece = match[0];
    tokens += piece.length === 1 || table.ranks.has(piece) ? 1 : mergedTokens(piece, table);
  }
  return tokens;
}

/**
 * The number of tokens byte-pair merging leaves of `piece` (ASCII, so one character is one byte): the adjacent
 * pair of parts with the lowest rank is merged, the leftmost on a tie, until no pair is in the table.
 */
function mergedTokens(piece: string, table: Ranks): number {
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
    rank[at] = pairRank(piece, starts, at, table.ranks);
    if (at > 0) rank[at - 1] = pairRank(piece, starts, at - 1, table.ranks);
  }
  return starts.length - 1;
}

function pairRank(
  piece: string,
  starts: readonly number[],
  index: number,
  ranks: Map<string, number>,
): number {
  const end = starts[index + 2];
  return end === undefined ? Number.POSITIVE_INFINITY : rankOf(piece, starts[index] as number, end, ranks);
}

function rankOf(piece: string, start: number, end: number, ranks: Map<string, number>): number {
  return ranks.get(piece.slice(start, end)) ?? Number.POSITIVE_INFINITY;
}
