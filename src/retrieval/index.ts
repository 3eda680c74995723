export { type CollapseCopiesOptions, collapseCopies } from "./collapse-copies.js";
export { createFusionRetriever, type FusionRetrieverOptions } from "./fusion-retriever.js";
export { type LexicalHit, LexicalIndex, type LexicalIndexOptions } from "./lexical-index.js";
export { createLexicalRetriever, type LexicalRetrieverOptions } from "./lexical-retriever.js";
export { RRF_K, reciprocalRankFusion } from "./reciprocal-rank-fusion.js";
export { type QueryOptions, RETRIEVAL_MODES, type RetrievalMode, type Retriever } from "./retriever.js";
export type { SerializedLexicalIndex } from "./serialized-lexical-index.js";
export type { VectorIndexRetrieverOptions } from "./vector-index-retriever.js";
