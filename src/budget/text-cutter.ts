import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { characterBoundary, trimEndOffset } from "../tokenizer/text-boundaries.js";
import type { TokenIndex } from "../tokenizer/token-index.js";

/** Where a chunk ends (trailing whitespace excluded) and its tokens on its own. */
export interface Cut {
  end: number;
  tokens: number;
}

/** The window a packer works for, named in its overflow errors. */
export interface PackLimits {
  contextWindow: number;
  numOutput: number;
}

/** Chooses where the chunk starting at an offset ends, for a token budget. */
export class TextCutter {
  private readonly text: string;
  private readonly index: TokenIndex;
  private readonly separators: readonly string[];
  private readonly longestSeparator: number;
  private readonly limits: PackLimits | undefined;

  constructor(index: TokenIndex, separators: readonly string[], limits?: PackLimits) {
    this.text = index.text;
    this.index = index;
    this.separators = separators;
    this.limits = limits;
    this.longestSeparator = Math.max(...separators.map((separator) => separator.length));
  }

  /**
   * The longest chunk from `start` within `limit` tokens: at a word boundary, unless that leaves more than
   * `maxWaste` tokens unused and a cut inside a word holds more.
   * @throws ContextOverflowError when even the first character needs more than `limit` tokens
   */
  cut(start: number, limit: number, maxWaste: number): Cut {
    const { fit, next } = this.index.reach(start, limit);
    if (fit === this.text.length) {
      const tokens = this.index.count(start, fit);
      if (tokens <= limit) return { end: fit, tokens };
    }
    const word = this.wordCut(start, next, limit);
    if (word && limit - word.tokens <= maxWaste) return word;
    const token = this.tokenCut(start, fit, next, limit);
    if (token && (!word || token.end > word.end)) return token;
    if (word) return word;
    const { character, tokens } = this.firstCharacter(start);
    throw this.overflow(
      `The character ${JSON.stringify(character)} (${tokens} tokens on its own)`,
      tokens,
      limit,
    );
  }

  /** The error for a piece of `tokens` that cannot be cut, where only `room` tokens fit. */
  overflow(what: string, tokens: number, room: number): ContextOverflowError {
    // Without a window (a packer used on its own) the budget itself is the window.
    const { contextWindow, numOutput } = this.limits ?? { contextWindow: room, numOutput: 0 };
    return ContextOverflowError.forPiece({
      what,
      tokens,
      room,
      contextWindow,
      numOutput,
      hint: "A chunk cannot split a character. Raise contextWindow, lower numOutput, or shorten the query, template or system prompt.",
    });
  }

  /** The character at `start` and its tokens on its own. */
  firstCharacter(start: number): { character: string; tokens: number } {
    const character = String.fromCodePoint(this.text.codePointAt(start) as number);
    return { character, tokens: this.index.tokenizer.count(character) };
  }

  /** The longest prefix ending just before a separator that fits, searching back from `next`. */
  private wordCut(start: number, next: number, limit: number): Cut | undefined {
    let found: Cut | undefined;
    let boundary = this.separatorAtOrBefore(start, next);
    for (; boundary > start; boundary = this.separatorAtOrBefore(start, boundary - 1)) {
      const end = trimEndOffset(this.text, start, boundary);
      if (end <= start) continue;
      const tokens = this.index.count(start, end);
      if (tokens <= limit) {
        found = { end, tokens };
        break;
      }
    }
    if (!found || this.index.exact) return found;
    // Word counts are only an estimate here: walk forward while the real count still fits.
    while (boundary < this.text.length) {
      boundary = this.separatorAfter(boundary + 1);
      const end = trimEndOffset(this.text, start, boundary);
      if (end <= found.end) continue;
      const tokens = this.index.count(start, end);
      if (tokens > limit) break;
      found = { end, tokens };
    }
    return found;
  }

  /**
   * The longest prefix that fits, cut inside the piece [fit, next) at a character boundary. It gallops from
   * `fit` before bisecting, so no probe is much longer than the answer (BPE is slow on long pieces).
   */
  private tokenCut(start: number, fit: number, next: number, limit: number): Cut | undefined {
    let best: Cut | undefined;
    const probe = (offset: number): boolean => {
      const end = trimEndOffset(this.text, start, offset);
      if (end <= start) return true;
      const tokens = this.index.count(start, end);
      if (tokens > limit) return false;
      if (!best || end > best.end) best = { end, tokens };
      return true;
    };
    let low = fit > start && probe(fit) ? fit : start;
    let high = next;
    for (let step = Math.max(1, limit - (best?.tokens ?? 0)); low + step < high; step *= 2) {
      const offset = characterBoundary(this.text, low + step);
      if (offset <= low) continue;
      if (!probe(offset)) {
        high = offset;
        break;
      }
      low = offset;
    }
    while (high - low > 1) {
      let middle = characterBoundary(this.text, (low + high) >>> 1);
      if (middle <= low) middle = characterBoundary(this.text, middle + 2);
      if (middle <= low || middle >= high) break;
      if (probe(middle)) low = middle;
      else high = middle;
    }
    return best;
  }

  /** The last offset in (start, at] where a separator starts; `start` if none. */
  private separatorAtOrBefore(start: number, at: number): number {
    if (at <= start) return start;
    const window = this.text.slice(start, at + this.longestSeparator);
    let best = start;
    for (const separator of this.separators) {
      const found = window.lastIndexOf(separator, at - start);
      if (found > 0 && start + found > best) best = start + found;
    }
    return best;
  }

  /** The first offset at or after `from` where a separator starts; the text's end if none. */
  private separatorAfter(from: number): number {
    let best = this.text.length;
    for (const separator of this.separators) {
      const found = this.text.indexOf(separator, from);
      if (found !== -1 && found < best) best = found;
    }
    return best;
  }
}
