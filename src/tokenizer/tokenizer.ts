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
}

/** The built-in BPE encodings (from `gpt-tokenizer`, loaded on first use). */
export type TokenizerName = "cl100k_base" | "o200k_base";

/** A tokenizer, a tokenizer function, or the name of a built-in encoding. */
export type TokenizerLike = Tokenizer | TokenizerFunction | TokenizerName;

/** The default encoding, as in LlamaIndex. */
export const DEFAULT_TOKENIZER_NAME: TokenizerName = "cl100k_base";
