import { type PieceCounts, pieceCountsOf } from "./piece-counts.js";
import { characterBoundary, trimEndOffset } from "./text-boundaries.js";
import type { Tokenizer } from "./tokenizer.js";

// Pieces for tokenizers without a pre-tokenizer: a word with the whitespace before it. Their counts are
// only an estimate of the text's count, so spans are counted for real.
const WORD_PIECES = /\s*\S+|\s+/gu;
// BPE libraries take quadratic time on long pieces (a run of letters without spaces), so such pieces are
// never tokenized again beyond what a budget needs.
const LONG_PIECE = 1024;

/** The pieces a span tokenized on its own starts with, until they line up with the whole text's pieces. */
interface Head {
  start: number;
  /** End offsets of the span's own first pieces (counted only when needed). */
  ends: number[];
  /** Index of the whole-text piece that ends where the head ends (-1: offset 0). */
  aligned: number;
  /** Where the head ends and the whole text's pieces take over; undefined if they never line up. */
  alignedAt: number | undefined;
}

/**
 * A text tokenized once, so that any span's token count (the span tokenized on its own) and the furthest
 * boundary within a budget are cheap to find. With a tokenizer that has a {@link Tokenizer.pretokenizer},
 * counts are exact: pieces are encoded independently, so a span's count is the sum of the pieces inside it,
 * plus its first and last pieces tokenized again on their own. Otherwise the pieces are words, the sums are
 * estimates, and {@link TokenIndex.count} counts the span for real.
 */
export class TokenIndex {
  readonly text: string;
  readonly tokenizer: Tokenizer;
  /** True when {@link TokenIndex.count} is exact without tokenizing the span again. */
  readonly exact: boolean;
  private readonly pattern: RegExp;
  private readonly pieces: PieceCounts;
  private ends: Uint32Array;
  private cumulative: Float64Array;
  private size = 0;
  private head: Head | undefined;

  constructor(tokenizer: Tokenizer, text: string) {
    this.text = text;
    this.tokenizer = tokenizer;
    this.pieces = pieceCountsOf(tokenizer);
    const initial = Math.max(16, Math.ceil(text.length / 3));
    this.ends = new Uint32Array(initial);
    this.cumulative = new Float64Array(initial);
    const pretokenizer = tokenizer.pretokenizer;
    const exactPattern = pretokenizer ? globalCopy(pretokenizer) : undefined;
    this.exact = exactPattern !== undefined && this.build(exactPattern);
    this.pattern = this.exact && exactPattern ? exactPattern : globalCopy(WORD_PIECES);
    if (!this.exact) {
      this.size = 0;
      this.build(this.pattern);
    }
  }

  /** Tokens of the whole text (exact when {@link TokenIndex.exact}). */
  get totalTokens(): number {
    return this.size === 0 ? 0 : (this.cumulative[this.size - 1] as number);
  }

  /** The token count of one piece of text on its own, memoized per tokenizer. */
  countText(piece: string): number {
    return this.pieces.count(piece);
  }

  /**
   * Tokens of `text.slice(start, end)` tokenized on its own: exact (and cheap) when {@link TokenIndex.exact},
   * otherwise a real count.
   */
  count(start: number, end: number): number {
    if (end <= start) return 0;
    if (!this.exact) return this.tokenizer.count(this.text.slice(start, end));
    return this.sum(start, end) ?? this.tokenizer.count(this.text.slice(start, end));
  }

  /**
   * Like {@link TokenIndex.count}, but from the piece counts alone: exact when exact, except that the rest of
   * a piece over 1,024 characters is estimated in proportion; an estimate otherwise.
   */
  estimate(start: number, end: number): number {
    if (end <= start) return 0;
    return this.sum(start, end, true) ?? this.tokenizer.count(this.text.slice(start, end));
  }

  /**
   * Tokens of `prefix + text.slice(start, end) + suffix` on its own: the span inside a prompt. Exact and cheap
   * when {@link TokenIndex.exact} (only the prefix, the span's first piece and its last pieces with the suffix
   * are tokenized again); otherwise a real count.
   */
  countFramed(prefix: string, start: number, end: number, suffix: string): number {
    const whole = () => this.tokenizer.count(prefix + this.text.slice(start, end) + suffix);
    if (!this.exact || end <= start) return whole();
    const trimmed = trimEndOffset(this.text, start, end);
    // Pieces up to here are matched alike in the prompt: the piece after them still lies inside the span.
    const safe = this.lastPieceEndingBy(trimmed) - 1;
    if (safe < 0) return whole();
    const framed = prefix + this.text.slice(start, end) + suffix;
    const pattern = this.pattern;
    pattern.lastIndex = 0;
    let headTokens = 0;
    let aligned = -1;
    for (let match = pattern.exec(framed); match !== null; match = pattern.exec(framed)) {
      headTokens += this.countText(match[0]);
      const offset = start + match.index + match[0].length - prefix.length;
      if (offset > (this.ends[safe] as number) || match[0].length === 0) return whole();
      if (offset > start) {
        const index = this.lastPieceEndingBy(offset);
        if (index >= 0 && this.ends[index] === offset) {
          aligned = index;
          break;
        }
      }
    }
    if (aligned < 0) return whole();
    const inner = (this.cumulative[safe] as number) - (this.cumulative[aligned] as number);
    const tailStart = prefix.length + (this.ends[safe] as number) - start;
    return headTokens + inner + this.tokenizer.count(framed.slice(tailStart));
  }

  /**
   * The furthest piece boundary `fit` after `start` such that the span up to it holds at most `maxTokens`
   * tokens, and the boundary `next` after it (the first piece that does not fit ends there).
   * `fitTokens` is the span's count up to `fit` (an estimate unless exact).
   */
  reach(start: number, maxTokens: number): { fit: number; fitTokens: number; next: number } {
    const head = this.headAt(start);
    let fit = start;
    let fitTokens = 0;
    for (const end of head.ends) {
      const tokens = this.countWithin(this.text.slice(fit, end), maxTokens - fitTokens);
      if (tokens === undefined) return { fit, fitTokens, next: end };
      fit = end;
      fitTokens += tokens;
    }
    if (head.alignedAt === undefined || head.aligned + 1 >= this.size) {
      return { fit, fitTokens, next: this.text.length };
    }
    const base = (head.aligned < 0 ? 0 : (this.cumulative[head.aligned] as number)) - fitTokens;
    // The last piece index whose running total (from the span's start) is within the budget.
    let low = head.aligned;
    let high = this.size - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((this.cumulative[middle] as number) - base <= maxTokens) low = middle;
      else high = middle - 1;
    }
    if (low > head.aligned) {
      fit = this.ends[low] as number;
      fitTokens = (this.cumulative[low] as number) - base;
    }
    const next = low + 1 < this.size ? (this.ends[low + 1] as number) : this.text.length;
    return { fit, fitTokens, next };
  }

  /** The count of a piece when it is at most `budget`; undefined when it is more, found without counting it all. */
  private countWithin(piece: string, budget: number): number | undefined {
    if (budget < 0) return undefined;
    if (piece.length <= LONG_PIECE) {
      const tokens = this.countText(piece);
      return tokens <= budget ? tokens : undefined;
    }
    for (
      let length = Math.min(piece.length, 4 * budget + 64);
      ;
      length = Math.min(piece.length, 2 * length)
    ) {
      const tokens = this.tokenizer.count(piece.slice(0, characterBoundary(piece, length)));
      if (tokens > budget) return undefined;
      if (length === piece.length) return tokens;
    }
  }

  private sum(start: number, end: number, estimateLongHead = false): number | undefined {
    const head = this.headAt(start);
    // A span that ends inside its own first pieces is counted directly.
    if (head.alignedAt === undefined || head.alignedAt > end) return undefined;
    // Trailing whitespace is matched differently at the end of a text, so it joins the re-tokenized tail.
    const trimmed = trimEndOffset(this.text, start, end);
    const last = this.lastPieceEndingBy(trimmed);
    if (last < head.aligned) return undefined;
    let headTokens = 0;
    let previous = start;
    for (const pieceEnd of head.ends) {
      const piece = this.text.slice(previous, pieceEnd);
      headTokens +=
        estimateLongHead && piece.length > LONG_PIECE
          ? this.proportion(previous, pieceEnd)
          : this.countText(piece);
      previous = pieceEnd;
    }
    const lastEnd = last < 0 ? 0 : (this.ends[last] as number);
    const inner =
      (last < 0 ? 0 : (this.cumulative[last] as number)) -
      (head.aligned < 0 ? 0 : (this.cumulative[head.aligned] as number));
    const tail = lastEnd < end ? this.countText(this.text.slice(lastEnd, end)) : 0;
    return headTokens + inner + tail;
  }

  /** The span's own first pieces, matched from `start`, until they end where a whole-text piece ends. */
  private headAt(start: number): Head {
    if (this.head?.start === start) return this.head;
    const head: Head = { start, ends: [], aligned: -1, alignedAt: undefined };
    const index = this.lastPieceEndingBy(start);
    if (start === 0 || (index >= 0 && this.ends[index] === start)) {
      head.aligned = start === 0 ? -1 : index;
      head.alignedAt = start;
    } else {
      const pattern = this.pattern;
      pattern.lastIndex = start;
      for (let match = pattern.exec(this.text); match !== null; match = pattern.exec(this.text)) {
        const end = match.index + match[0].length;
        head.ends.push(end);
        const aligned = this.lastPieceEndingBy(end);
        if (aligned >= 0 && this.ends[aligned] === end) {
          head.aligned = aligned;
          head.alignedAt = end;
          break;
        }
        if (match[0].length === 0) break;
      }
    }
    this.head = head;
    return head;
  }

  /** The tokens of text[from, to) estimated from the whole-text pieces it overlaps, in proportion to length. */
  private proportion(from: number, to: number): number {
    let tokens = 0;
    for (let index = this.lastPieceEndingBy(from) + 1; index < this.size; index++) {
      const pieceStart = index === 0 ? 0 : (this.ends[index - 1] as number);
      const pieceEnd = this.ends[index] as number;
      if (pieceStart >= to) break;
      const pieceTokens =
        (this.cumulative[index] as number) - (index === 0 ? 0 : (this.cumulative[index - 1] as number));
      const overlap = Math.min(pieceEnd, to) - Math.max(pieceStart, from);
      tokens += Math.ceil((pieceTokens * overlap) / (pieceEnd - pieceStart));
    }
    return tokens;
  }

  /** The index of the last whole-text piece ending at or before `offset` (-1 if none). */
  private lastPieceEndingBy(offset: number): number {
    let low = -1;
    let high = this.size - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((this.ends[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** Splits the whole text into pieces; false when the pattern leaves gaps (then it is not a pre-tokenizer). */
  private build(pattern: RegExp): boolean {
    const text = this.text;
    let offset = 0;
    let total = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const piece = match[0];
      if (match.index !== offset || piece.length === 0) return false;
      offset += piece.length;
      total += this.countText(piece);
      this.push(offset, total);
    }
    return offset === text.length;
  }

  private push(end: number, total: number): void {
    if (this.size === this.ends.length) {
      const ends = new Uint32Array(this.size * 2);
      ends.set(this.ends);
      this.ends = ends;
      const cumulative = new Float64Array(this.size * 2);
      cumulative.set(this.cumulative);
      this.cumulative = cumulative;
    }
    this.ends[this.size] = end;
    this.cumulative[this.size] = total;
    this.size += 1;
  }
}

function globalCopy(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
}
