import type { TokenizerName } from "./tokenizer.js";

// The pre-tokenizer patterns of the built-in encodings (tiktoken's), as gpt-tokenizer writes them in its
// `encodingParams/constants`, so our pieces are its pieces. Written here rather than required from it: loading that
// module cost the first token count of every process ~6 ms (resolving it, then its three Unicode-property
// expressions), measured in fresh processes. split-patterns.test.ts holds them equal to the installed gpt-tokenizer's.
const SOURCES: Readonly<Record<TokenizerName, string>> = {
  cl100k_base: String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s`,
  o200k_base: String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  r50k_base: String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
};

/** The encoding's pre-tokenizer pattern, global and Unicode; a new object each call (its `lastIndex` is state). */
export function splitPattern(name: TokenizerName): RegExp {
  return new RegExp(SOURCES[name], "gu");
}
