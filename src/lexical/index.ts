export { type LexicalHit, LexicalIndex, type LexicalIndexOptions } from "./lexical-index.js";
export { createLexicalRetriever, type LexicalRetrieverOptions } from "./lexical-retriever.js";
export type { SerializedLexicalIndex } from "./serialized-lexical-index.js";
