/**
 * LlamaIndex's tokenizer convention: any function from text to a list of tokens. Only the length is used.
 */
export type TokenizerFunction = (text: string) => ArrayLike<unknown>;

/**
 * A tokenizer ragsynth can count with quickly. Any {@link TokenizerFunction} can be wrapped into one
 * with {@link resolveTokenizer}.
 */
export interface Tokenizer {
  /** A stable name, used in traces and cache keys (`cl100k_base`, `custom`). */
  readonly name: string;
  /** The number of tokens in `text`. */
  count(text: string): number;
  /**
   * Optional early stop for "does it fit?": the exact count when `text` has at most `limit` tokens, otherwise
   * any number above `limit` (the count may stop as soon as it passes it). Without it, {@link countUpTo} counts
   * the whole text. The built-in encodings provide it.
   */
  countUpTo?(text: string, limit: number): number;
  /** The tokens of `text`; only their number and order matter to ragsynth. */
  encode(text: string): ArrayLike<unknown>;
  /**
   * Optional fast path for budgeting: the pre-tokenizer pattern of a tiktoken-style BPE tokenizer, whose
   * matches are encoded independently (so a text's count is the sum of its matches' counts). It must be a
   * global, unicode RegExp without lookbehind whose matches cover the text. With it, the budget tokenizes
   * a text once and cuts it at exact token boundaries; without it, a slower path counts each candidate.
   * The built-in encodings provide it.
   */
  readonly pretokenizer?: RegExp;
}

/**
 * The built-in BPE encodings (from `gpt-tokenizer`, loaded on first use). `r50k_base` is GPT-2's
 * encoding, kept for older models and LlamaIndex's GPT-2 test cases.
 */
export type TokenizerName = "cl100k_base" | "o200k_base" | "r50k_base";

/** A tokenizer, a tokenizer function, or the name of a built-in encoding. */
export type TokenizerLike = Tokenizer | TokenizerFunction | TokenizerName;

/** The default encoding, as in LlamaIndex. */
export const DEFAULT_TOKENIZER_NAME: TokenizerName = "cl100k_base";

/**
 * `tokenizer.countUpTo(text, limit)` when the tokenizer has it, else its full count: exact up to `limit`, and above
 * `limit` whenever the text is. Splitting a long document asks "does this fit?" at every level; a full count there
 * re-tokenized the whole document once per level.
 */
export function countUpTo(tokenizer: Tokenizer, text: string, limit: number): number {
  return tokenizer.countUpTo ? tokenizer.countUpTo(text, limit) : tokenizer.count(text);
}
