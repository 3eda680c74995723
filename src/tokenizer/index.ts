export type { Tokenizer, TokenizerFunction, TokenizerLike, TokenizerName } from "./tokenizer.js";
