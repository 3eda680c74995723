import type { DocumentBlock } from "../reader/formats/types.js";
import { BPE_WINDOW, cutsOnlyAtPieceStarts } from "../tokenizer/bounded-pieces.js";
import { type LineBreakCut, lineBreakCut } from "../tokenizer/line-break-cut.js";
import { countUpTo, type Tokenizer } from "../tokenizer/tokenizer.js";
import { blockJoiner, renderBlock, renderBlocks } from "./block-sections.js";

// A block's text cut off at its joiners, counted once: the count with no joiner, "\n", "\n\n" beside it
// (undefined when that text is not cut only at piece starts, so its count would not add up).
interface Counted {
  text: string;
  counts: Array<number | undefined | null>;
  /** Per joiner, a count known only to pass this (counting stopped there): the text did not fit a smaller budget. */
  floors: Array<number | undefined>;
  /** The tokenizer's count of `text` alone, once asked for ({@link BlockFit.tokens}). */
  tokens?: number;
}

const JOINERS = ["", "\n", "\n\n"] as const;

/**
 * "Do these blocks, rendered as a chunk, fit `budget` tokens?", answered as an exact count of the rendered text
 * would, without counting it: the packers ask it once per added block, and counting the whole candidate each time
 * made packing quadratic in a chunk's length (~94% of splitting). With a built-in encoding the rendered text is
 * cut at its joiners where {@link lineBreakCut} says the counts add up exactly, and each block's part is counted
 * once. Anything else (another tokenizer, a block starting or ending with whitespace, text cut mid-run by the
 * tokenizer's windows) is counted whole as before.
 */
export class BlockFit {
  readonly #tokenizer: Tokenizer;
  readonly #cut: LineBreakCut | undefined;
  readonly #counted = new WeakMap<DocumentBlock, Counted>();

  constructor(tokenizer: Tokenizer) {
    this.#tokenizer = tokenizer;
    this.#cut = lineBreakCut(tokenizer);
  }

  /** True when `renderBlocks(blocks)` has at most `budget` tokens. */
  fits(blocks: readonly DocumentBlock[], budget: number): boolean {
    const sum = this.#sum(blocks, budget);
    if (sum !== undefined) return sum <= budget;
    return countUpTo(this.#tokenizer, renderBlocks(blocks), budget) <= budget;
  }

  /**
   * `tokenizer.count(renderBlock(block))`, counted once per block: the count {@link fits} already took of the block
   * alone when it took one, else the tokenizer's.
   */
  tokens(block: DocumentBlock): number {
    const counted = this.#block(block);
    counted.tokens ??= counted.counts[0] ?? this.#tokenizer.count(counted.text);
    return counted.tokens;
  }

  // The exact count (or a part of it above `budget`), or undefined when the parts' counts may not add up.
  #sum(blocks: readonly DocumentBlock[], budget: number): number | undefined {
    const cut = this.#cut;
    if (!cut || blocks.length === 0) return undefined;
    let length = 0;
    let sum = 0;
    let over = false;
    for (let index = 0; index < blocks.length; index++) {
      const block = blocks[index] as DocumentBlock;
      const counted = this.#block(block);
      const previous = blocks[index - 1];
      const next = blocks[index + 1];
      const before = previous ? blockJoiner(previous, block) : "";
      const after = next ? blockJoiner(block, next) : "";
      if (next && !cut.allows(counted.text, this.#block(next).text)) return undefined;
      length += counted.text.length + after.length;
      if (over) continue;
      const count = this.#count(counted, cut.side === "after" ? after : before, cut.side, budget - sum);
      if (count === undefined) return undefined;
      sum += count;
      // Counts are never negative: past the budget, the rest only has to be checked for exact cuts.
      if (sum > budget) over = true;
    }
    if (length > BPE_WINDOW && !cutsOnlyAtPieceStarts(renderBlocks(blocks))) return undefined;
    return sum;
  }

  #block(block: DocumentBlock): Counted {
    let counted = this.#counted.get(block);
    if (!counted) {
      counted = { text: renderBlock(block), counts: [], floors: [] };
      this.#counted.set(block, counted);
    }
    return counted;
  }

  // The count of the block's text with `joiner` on `side`: exact when at most `limit`, else a number over `limit`
  // (counting stops there: a block that cannot fit is not counted to its end, and a long one was counted whole up
  // to three times, once per joiner, only to be turned down). Undefined when the parts' counts may not add up.
  #count(counted: Counted, joiner: string, side: "before" | "after", limit: number): number | undefined {
    const slot = JOINERS.indexOf(joiner as (typeof JOINERS)[number]);
    const count = counted.counts[slot];
    if (count !== undefined) return count ?? undefined;
    const floor = counted.floors[slot];
    if (floor !== undefined && floor > limit) return floor;
    const text = side === "after" ? counted.text + joiner : joiner + counted.text;
    if (!cutsOnlyAtPieceStarts(text)) {
      counted.counts[slot] = null;
      return undefined;
    }
    const tokens = countUpTo(this.#tokenizer, text, Math.max(0, limit));
    if (tokens > limit) counted.floors[slot] = tokens;
    else counted.counts[slot] = tokens;
    return tokens;
  }
}
