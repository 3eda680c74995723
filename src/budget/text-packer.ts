import { describeValue } from "../errors/describe-value.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { isWhitespace } from "../tokenizer/text-boundaries.js";
import { TokenIndex } from "../tokenizer/token-index.js";
import type { TokenizerLike } from "../tokenizer/tokenizer.js";
import { type Cut, type PackLimits, TextCutter } from "./text-cutter.js";

/** Takes text off the front of a list of chunks, one budget at a time. */
export interface TextPacker {
  /**
   * The longest prefix of the remaining text that, tokenized on its own, has at most `maxTokens` tokens,
   * cut at a word (separator) boundary when one fits, else at a token boundary (never inside a character).
   * Returns `undefined` when the text is used up.
   * @throws InvalidArgumentError when `maxTokens` is not a positive integer
   * @throws ContextOverflowError when `maxTokens` is smaller than the next character's tokens
   * @throws ContextOverflowError when no prefix fits `options.frame` and `options.fits`
   */
  next(maxTokens: number, options?: PackOptions): string | undefined;
  /**
   * Like {@link TextPacker.next}, with the piece's token count on its own, known from the packer's one
   * up-front tokenization, so the caller need not tokenize the piece again.
   * @throws the same errors as {@link TextPacker.next}
   */
  nextPiece(maxTokens: number, options?: PackOptions): PackedPiece | undefined;
  /** True when all the text has been taken. */
  readonly done: boolean;
  /** Tokens of the remaining text on its own: exact for the built-in encodings, a word-sum estimate otherwise. */
  readonly remainingTokens: number;
}

/** A piece taken by {@link TextPacker.nextPiece} or `PromptHelper.repackWithTokens`. */
export interface PackedPiece {
  /** The piece's text, trimmed. */
  text: string;
  /** `tokenizer.count(text)`: the piece tokenized on its own, exactly. */
  tokens: number;
  /**
   * The whole prompt's tokens with this piece as its context (`prefix + text + suffix` plus the frame's
   * `outsideTokens`), when it was packed against a frame that states them: the count the budget checked,
   * so a caller need not count the prompt again before sending it.
   */
  promptTokens?: number;
  /**
   * Indexes (into the packer's `chunks`) of the chunks this piece holds, whole or in part, in order: what
   * went into the call, recorded where it is packed (the trace page and events read it; nothing re-matches text).
   */
  sources: number[];
}

/** Options of one {@link TextPacker.next} call. */
export interface PackOptions {
  /**
   * The prompt around the chunk: `prefix + chunk + suffix` must also hold at most `maxTokens` tokens. Counted
   * from the up-front tokenization (exact for the built-in encodings), so it is cheap. See
   * `PromptHelper.createPromptFrame`.
   */
  frame?: PromptFrame | undefined;
  /**
   * Any further check of the chosen chunk. A chunk that fails is shortened until it passes.
   */
  fits?: ((chunk: string) => boolean) | undefined;
  /**
   * The most budget tokens a word-boundary cut may leave unused; when a word cut would waste more, the chunk
   * is cut inside a word at a token boundary instead.
   * @default Infinity (always cut at a word boundary when one fits)
   */
  maxWaste?: number | undefined;
}

/** The text around a chunk in its prompt, and the most tokens the three may take together. */
export interface PromptFrame {
  prefix: string;
  suffix: string;
  maxTokens: number;
  /** Tokens of the prompt outside `prefix + chunk + suffix` (other messages, their overhead, a schema). */
  outsideTokens?: number;
}

/** Options of {@link createTextPacker}. */
export interface TextPackerOptions {
  /** The texts, taken in order. They are trimmed, blank ones dropped, and joined with `"\n\n"`. */
  chunks: readonly string[];
  /** @default "cl100k_base" */
  tokenizer?: TokenizerLike | undefined;
  /** Where a word ends. @default " " */
  separator?: string | undefined;
  /** Further boundaries, used like the separator. @default ["\n"] */
  backupSeparators?: readonly string[] | undefined;
  /** The window the pieces are for, named in overflow errors (`PromptHelper.createPacker` passes its own). */
  limits?: PackLimits | undefined;
}

/**
 * Packs texts into pieces that each fit a token budget, tokenizing the whole input once up front so that
 * taking many pieces stays cheap. This is LlamaIndex's repack join (`"\n\n".join(stripped chunks)`) with
 * greedy, just-in-time cutting instead of a splitter.
 * @example
 * const packer = createTextPacker({ chunks: ["one two", "three"] });
 * packer.next(2); // "one two"
 */
export function createTextPacker({
  chunks,
  tokenizer,
  separator = " ",
  backupSeparators = ["\n"],
  limits,
}: TextPackerOptions): TextPacker {
  return new GreedyTextPacker(joinWithStarts(chunks), tokenizer, [separator, ...backupSeparators], limits);
}

/** Throws unless `chunks` is an array of strings, naming the first bad index. */
export function checkChunks(chunks: readonly string[]): void {
  if (!Array.isArray(chunks)) {
    throw new InvalidArgumentError({
      parameter: "chunks",
      value: chunks,
      expected: "be an array of strings",
    });
  }
  for (const [index, chunk] of chunks.entries()) {
    if (typeof chunk !== "string") {
      throw new InvalidArgumentError({
        parameter: `chunks[${index}]`,
        value: chunk,
        expected: "be a string",
        hint: "Pass the text of each chunk (for nodes, node.getContent()).",
      });
    }
  }
}

/** Trims the chunks, drops blank ones and joins the rest with `"\n\n"`, as LlamaIndex's repack does. */
export function joinChunks(chunks: readonly string[]): string {
  return joinWithStarts(chunks).text;
}

/** The joined text, and where each kept chunk starts in it (`starts[i]`) with its index in `chunks` (`indexes[i]`). */
interface JoinedChunks {
  text: string;
  starts: number[];
  indexes: number[];
}

const JOIN = "\n\n";

function joinWithStarts(chunks: readonly string[]): JoinedChunks {
  checkChunks(chunks);
  const kept: string[] = [];
  const starts: number[] = [];
  const indexes: number[] = [];
  let length = 0;
  for (const [index, chunk] of chunks.entries()) {
    const trimmed = chunk.trim();
    if (trimmed === "") continue;
    if (kept.length > 0) length += JOIN.length;
    starts.push(length);
    indexes.push(index);
    kept.push(trimmed);
    length += trimmed.length;
  }
  return { text: kept.join(JOIN), starts, indexes };
}

/** The indexes of the chunks that `[start, end)` of the joined text overlaps: a binary search, then a walk. */
function chunksIn({ starts, indexes }: JoinedChunks, start: number, end: number): number[] {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if ((starts[middle] as number) <= start) low = middle;
    else high = middle - 1;
  }
  const found: number[] = [];
  for (let kept = low; kept < starts.length && (starts[kept] as number) < end; kept += 1) {
    found.push(indexes[kept] as number);
  }
  return found;
}

class GreedyTextPacker implements TextPacker {
  private readonly joined: JoinedChunks;
  private readonly text: string;
  private readonly index: TokenIndex;
  private readonly cutter: TextCutter;
  private position = 0;

  constructor(
    joined: JoinedChunks,
    tokenizer: TokenizerLike | undefined,
    separators: string[],
    limits: PackLimits | undefined,
  ) {
    for (const [index, separator] of separators.entries()) {
      if (typeof separator !== "string" || separator === "") {
        throw new InvalidArgumentError({
          parameter: index === 0 ? "separator" : `backupSeparators[${index - 1}]`,
          value: separator,
          expected: "be a non-empty string",
        });
      }
    }
    this.joined = joined;
    this.text = joined.text;
    this.index = new TokenIndex(resolveTokenizer(tokenizer), joined.text);
    this.cutter = new TextCutter(this.index, separators, limits);
  }

  get done(): boolean {
    return this.position >= this.text.length;
  }

  get remainingTokens(): number {
    return this.index.estimate(this.position, this.text.length);
  }

  next(maxTokens: number, options: PackOptions = {}): string | undefined {
    return this.nextPiece(maxTokens, options)?.text;
  }

  nextPiece(maxTokens: number, options: PackOptions = {}): PackedPiece | undefined {
    if (!Number.isInteger(maxTokens) || maxTokens < 1) {
      throw new InvalidArgumentError({
        parameter: "maxTokens",
        value: maxTokens,
        expected: "be a positive integer",
        hint: "A budget of 0 or less holds no text: raise contextWindow, lower numOutput, or shorten the prompt.",
      });
    }
    const { fits, frame, maxWaste = Number.POSITIVE_INFINITY } = options;
    if (typeof maxWaste !== "number" || Number.isNaN(maxWaste) || maxWaste < 0) {
      throw new InvalidArgumentError({ parameter: "maxWaste", value: maxWaste, expected: "be a number ≥ 0" });
    }
    if (this.done) return undefined;
    // The cut's own count is already exact (or, without a pre-tokenizer, a real count); the frame and the
    // caller's check see the chunk in its prompt.
    const framed = new Map<number, number>();
    const framedCount = (end: number) => {
      let tokens = framed.get(end);
      if (tokens === undefined && frame) {
        tokens = this.index.countFramed(frame.prefix, this.position, end, frame.suffix);
        framed.set(end, tokens);
      }
      return tokens ?? 0;
    };
    const passes = (cut: Cut) =>
      (!frame || framedCount(cut.end) <= frame.maxTokens) &&
      (!fits || fits(this.text.slice(this.position, cut.end)));
    let best = this.cutter.cut(this.position, maxTokens, maxWaste);
    if (!passes(best)) best = this.shrink(best, maxWaste, passes, frame);
    // A cut's count is the span's count on its own: exact from the index, or a real count without one.
    const piece: PackedPiece = {
      text: this.text.slice(this.position, best.end),
      tokens: best.tokens,
      sources: chunksIn(this.joined, this.position, best.end),
    };
    if (frame?.outsideTokens !== undefined) piece.promptTokens = framedCount(best.end) + frame.outsideTokens;
    this.advance(best.end);
    return piece;
  }

  /** The longest cut below `failed` that passes: gallop down, then bisect between passing and failing. */
  private shrink(
    failed: Cut,
    maxWaste: number,
    passes: (cut: Cut) => boolean,
    frame: PromptFrame | undefined,
  ): Cut {
    let failing = failed.tokens;
    let passing: Cut | undefined;
    const minimum = this.cutter.firstCharacter(this.position).tokens;
    for (let step = 1; !passing; step *= 2) {
      const limit = Math.max(failing - step, minimum);
      if (limit >= failing) throw this.firstCharacterOverflow(frame, minimum);
      const cut = this.cutter.cut(this.position, limit, maxWaste);
      if (passes(cut)) passing = cut;
      else failing = Math.min(failing, cut.tokens);
    }
    while (failing - passing.tokens > 1) {
      const cut = this.cutter.cut(this.position, (passing.tokens + failing) >>> 1, maxWaste);
      if (cut.end <= passing.end) break;
      if (passes(cut)) passing = cut;
      else failing = Math.min(failing, cut.tokens);
    }
    return passing;
  }

  /** Not even the first character fits in its prompt (`frame`) or passes the caller's check. */
  private firstCharacterOverflow(frame: PromptFrame | undefined, characterTokens: number): Error {
    const start = this.text.slice(this.position, this.position + 40);
    const what = `Even the first character of the next text (${describeValue(start)})`;
    if (!frame) return this.cutter.overflow(what, characterTokens, 0);
    const end = this.position + String.fromCodePoint(this.text.codePointAt(this.position) as number).length;
    const tokens = this.index.countFramed(frame.prefix, this.position, end, frame.suffix);
    return this.cutter.overflow(what, tokens, frame.maxTokens);
  }

  private advance(end: number): void {
    let position = end;
    while (position < this.text.length && isWhitespace(this.text.charCodeAt(position))) position += 1;
    this.position = position;
  }
}
