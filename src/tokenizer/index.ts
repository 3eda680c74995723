export { isTokenizerName, resolveTokenizer, tokenizerNameForModel } from "./resolve-tokenizer.js";
export { TokenIndex } from "./token-index.js";
export {
  DEFAULT_TOKENIZER_NAME,
  type Tokenizer,
  type TokenizerFunction,
  type TokenizerLike,
  type TokenizerName,
} from "./tokenizer.js";
