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
