import { BoundedCache, ownCopy } from "../util/bounded-cache.js";
import type { Tokenizer } from "./tokenizer.js";

/** Pieces longer than this are counted each time, not cached (long runs are rare and would crowd the cache). */
export const MAX_CACHED_PIECE = 128;
// Up to two generations of 200,000 piece counts (~40 MB when full of 16-character pieces). Real prose and code
// have ~40k distinct pieces per million tokens, and ~130k in the bench's 6.4M-token corpus: a cache smaller than
// the working vocabulary misses on every pass (2 × 50,000 made a warm 6.4M-token index 2.5× slower than a cold
// one); this one holds it without growing with the input.
const CACHE_GENERATION = 200_000;

// A held count that `known` answered carries this flag (a piece of at most MAX_CACHED_PIECE characters has far fewer
// tokens than it), so the saved recent pieces can leave out what the table of all pieces already holds.
const FROM_KNOWN = 0x1_0000;
const COUNT_MASK = 0xffff;

/** Private to the tokenizer folder: a built-in tokenizer's own piece counts, shared with every TokenIndex. */
export const PIECE_COUNTS: unique symbol = Symbol("ragsynth.pieceCounts");

/** Memoized token counts of pre-tokenizer pieces (each counted on its own), bounded in size. */
export class PieceCounts {
  readonly #cache = new BoundedCache<string, number>(CACHE_GENERATION);
  readonly #count: (piece: string) => number;
  readonly #known: ((piece: string) => number | undefined) | undefined;
  #counted = 0;

  /**
   * @param count counts a piece not held
   * @param known a count known from elsewhere (a table earlier runs saved), asked before `count`; its answers are
   *   held as seeded ones are, not as {@link counted}
   */
  constructor(count: (piece: string) => number, known?: (piece: string) => number | undefined) {
    this.#count = count;
    this.#known = known;
  }

  /** The tokens of `piece` on its own. */
  count(piece: string): number {
    if (piece.length > MAX_CACHED_PIECE) return this.#count(piece);
    let held = this.#cache.get(piece);
    if (held === undefined) {
      const known = this.#known?.(piece);
      if (known === undefined) {
        held = this.#count(piece);
        this.#counted++;
      } else {
        held = known | FROM_KNOWN;
      }
      this.#cache.set(ownCopy(piece), held);
    }
    return held & COUNT_MASK;
  }

  /**
   * Takes counts known from elsewhere (a saved file of this encoding's counts), listed most recent first as
   * {@link recent} lists them, for pieces of at most {@link MAX_CACHED_PIECE} characters; they count as held,
   * not as {@link counted}, and keep their order of recency.
   */
  seed(pieces: readonly string[], counts: ArrayLike<number>): void {
    for (let index = pieces.length - 1; index >= 0; index--) {
      const piece = pieces[index];
      if (typeof piece === "string" && piece.length <= MAX_CACHED_PIECE)
        this.#cache.set(piece, counts[index] as number);
    }
  }

  /**
   * Up to `limit` pieces held with their counts, the most recently used first; with `exceptKnown`, only those that
   * `known` did not answer (it holds the others already).
   */
  recent(limit: number, { exceptKnown = false } = {}): { pieces: string[]; counts: number[] } {
    const pieces: string[] = [];
    const counts: number[] = [];
    for (const [piece, held] of this.#cache.recent(exceptKnown ? Number.POSITIVE_INFINITY : limit)) {
      if (pieces.length >= limit) break;
      if (exceptKnown && held & FROM_KNOWN) continue;
      pieces.push(piece);
      counts.push(held & COUNT_MASK);
    }
    return { pieces, counts };
  }

  /** Pieces this memo counted itself (cache misses), since it was made. */
  get counted(): number {
    return this.#counted;
  }

  /** Pieces held (a piece in both generations counts twice). */
  get size(): number {
    return this.#cache.size;
  }
}

const forCustom = new WeakMap<Tokenizer, PieceCounts>();

/**
 * The piece counts of `tokenizer`: a built-in encoding's own (which its `count` also uses), else one memo per
 * tokenizer object over its `count`.
 */
export function pieceCountsOf(tokenizer: Tokenizer): PieceCounts {
  const own = (tokenizer as { [PIECE_COUNTS]?: PieceCounts })[PIECE_COUNTS];
  if (own) return own;
  let counts = forCustom.get(tokenizer);
  if (!counts) {
    counts = new PieceCounts((piece) => tokenizer.count(piece));
    forCustom.set(tokenizer, counts);
  }
  return counts;
}
