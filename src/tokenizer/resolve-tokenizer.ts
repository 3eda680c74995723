import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { bpeTokenizer } from "./bpe-tokenizer.js";
import {
  DEFAULT_TOKENIZER_NAME,
  type Tokenizer,
  type TokenizerLike,
  type TokenizerName,
} from "./tokenizer.js";

const builtIns = new Map<TokenizerName, Tokenizer>();
const wrapped = new WeakMap<object, Tokenizer>();

/** True for the names of the built-in encodings. */
export function isTokenizerName(value: unknown): value is TokenizerName {
  return value === "cl100k_base" || value === "o200k_base" || value === "r50k_base";
}

/**
 * Turns a tokenizer, a tokenizer function or a built-in name into a {@link Tokenizer}.
 * @default "cl100k_base" when `tokenizer` is undefined
 * @throws InvalidArgumentError for anything else
 */
export function resolveTokenizer(tokenizer: TokenizerLike | undefined = DEFAULT_TOKENIZER_NAME): Tokenizer {
  if (isTokenizerName(tokenizer)) {
    let instance = builtIns.get(tokenizer);
    if (!instance) {
      instance = bpeTokenizer(tokenizer);
      builtIns.set(tokenizer, instance);
    }
    return instance;
  }
  if (typeof tokenizer === "function") {
    let instance = wrapped.get(tokenizer);
    if (!instance) {
      const fn = tokenizer;
      instance = { name: fn.name || "custom", count: (text) => fn(text).length, encode: (text) => fn(text) };
      wrapped.set(tokenizer, instance);
    }
    return instance;
  }
  if (typeof tokenizer === "object" && tokenizer !== null && typeof tokenizer.count === "function") {
    return tokenizer;
  }
  throw new InvalidArgumentError({
    parameter: "tokenizer",
    value: tokenizer,
    expected:
      'be "cl100k_base", "o200k_base", "r50k_base", a function (text) => tokens, or an object with count(text)',
  });
}

/**
 * The built-in encoding for a model name: `o200k_base` for the GPT-4o, GPT-4.1, GPT-5 and o-series
 * families, `cl100k_base` for everything else (including unknown and local models, as LlamaIndex does).
 */
export function tokenizerNameForModel(model: string | undefined): TokenizerName {
  if (!model) return DEFAULT_TOKENIZER_NAME;
  const id = model.toLowerCase().replace(/^.*\//, "");
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4|gpt-oss)/.test(id)) return "o200k_base";
  return "cl100k_base";
}
